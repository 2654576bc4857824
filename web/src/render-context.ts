/** What every component renderer receives besides its component: the card and its actions. */
import type { CardPayload, Json } from './model';
import type { Refusals } from './refusals';

export interface RenderContext {
  card: CardPayload;
  /** Saves one edit (an address and its new value). */
  commit: (path: string, value: Json) => void;
  /** Refusals by address: the message, and the value the person tried. */
  rejected: Refusals;
  busy: boolean;
  navigate: (viewId: string) => void;
  openLink?: (url: string) => void;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
