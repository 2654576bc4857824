/**
 * `modelworks/react`: `<ModelworksModel>`, the `<modelworks-model>` element as a React component.
 * Props mirror the element's attributes; the callbacks receive the messages' details. The ref is
 * the element (call `ref.current.set({...})` to edit the model). React is a peer dependency.
 */
import { createElement, forwardRef, useEffect, useImperativeHandle, useRef, type CSSProperties } from 'react';
import './element.js';
import type { EmbedMode, EmbedTheme, ModelworksEventMap, ModelworksModelElement } from './element.js';

type Detail<K extends keyof ModelworksEventMap> = ModelworksEventMap[K]['detail'];

export interface ModelworksModelProps {
  /** A stored model's URL on the server (…/models/<id>). */
  src?: string;
  /** A ModelSpec (object or JSON text), shown on a private, expiring copy. */
  spec?: unknown;
  /** The server's URL (needed with `spec` when the element is bundled into the app). */
  server?: string;
  mode?: EmbedMode;
  theme?: EmbedTheme;
  view?: string;
  height?: 'auto' | number;
  lazy?: boolean;
  /** A paired session's token, for a stored model on a keyed server. */
  token?: string;
  title?: string;
  className?: string;
  style?: CSSProperties;
  onReady?: (detail: Detail<'modelworks-ready'>) => void;
  onChange?: (detail: Detail<'modelworks-change'>) => void;
  onConstraint?: (detail: Detail<'modelworks-constraint'>) => void;
  onError?: (detail: Detail<'modelworks-error'>) => void;
  onHeight?: (detail: Detail<'modelworks-height'>) => void;
}

const CALLBACKS = {
  'modelworks-ready': 'onReady',
  'modelworks-change': 'onChange',
  'modelworks-constraint': 'onConstraint',
  'modelworks-error': 'onError',
  'modelworks-height': 'onHeight',
} as const;

export const ModelworksModel = forwardRef<ModelworksModelElement, ModelworksModelProps>(
  function ModelworksModel(props, ref) {
    const element = useRef<ModelworksModelElement | null>(null);
    useImperativeHandle(ref, () => element.current!, []);
    // the latest callbacks, without re-adding listeners on every render
    const latest = useRef(props);
    latest.current = props;
    useEffect(() => {
      const el = element.current;
      if (!el) return;
      const listeners = Object.entries(CALLBACKS).map(([event, prop]) => {
        const listener = (e: Event): void => {
          const callback = latest.current[prop] as ((detail: unknown) => void) | undefined;
          callback?.((e as CustomEvent).detail);
        };
        el.addEventListener(event, listener);
        return () => el.removeEventListener(event, listener);
      });
      return () => listeners.forEach((off) => off());
    }, []);
    const { src, spec, server, mode, theme, view, height, lazy, token, title, className, style } = props;
    return createElement('modelworks-model', {
      ref: element,
      ...(src !== undefined ? { src } : {}),
      ...(spec !== undefined ? { spec: typeof spec === 'string' ? spec : JSON.stringify(spec) } : {}),
      ...(server !== undefined ? { server } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(theme !== undefined ? { theme } : {}),
      ...(view !== undefined ? { view } : {}),
      ...(height !== undefined ? { height: String(height) } : {}),
      ...(lazy ? { lazy: '' } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(className !== undefined ? { className } : {}),
      style: { display: 'block', ...style },
    });
  },
);
