/**
 * pair_browser (remote mode with `--browser` only): pairs this MCP server with a browser session
 * so a person can watch and edit the agent's models in the sandbox. Waits up to 60 s for the
 * approval with progress notifications, stops at once when cancelled, and hands the link to the
 * person through a URL-mode elicitation when the client supports one: a server-to-client request
 * for 2025-era clients; at 2026-07-28 an `input_required` round first, then the wait on the retry.
 */
import { PairingFailedError, type BrowserPairing, type PendingPairing } from '../remote/browser-pairing.js';
import { inputRequired } from './input-required.js';
import { okResult, textError } from './results.js';
import { input, output, type ToolDefinition } from './tool.js';

/** The `inputRequests` key of the link handed over at 2026-07-28. */
const LINK_KEY = 'pairing-link';

const linkMessage = (p: PendingPairing): string =>
  `Open this link and approve code ${p.userCode} to let the agent work with you on live models.`;

export function pairBrowserTool(pairing: BrowserPairing): ToolDefinition {
  // the elicitation of the pairing in progress: a later call that finishes it sends its completion
  let complete: (() => void) | undefined;
  return {
    name: 'pair_browser',
    title: 'Pair with a browser',
    description:
      'Pair this agent with a browser session so a person can watch and edit the models you build, live. ' +
      'Returns {status:"paired"|"already_paired", namespaceId}, or {status:"pending", verificationUri, ' +
      'verificationUriComplete, userCode, expiresInSec}: then show the person the link and code and call ' +
      'pair_browser again. Model tools answer "Not paired" until this has paired.',
    inputSchema: input({}),
    outputSchema: output(
      {
        status: { type: 'string', enum: ['paired', 'already_paired', 'pending'] },
        namespaceId: { type: 'string' },
        verificationUri: { type: 'string' },
        verificationUriComplete: { type: 'string' },
        userCode: { type: 'string' },
        expiresInSec: { type: 'number' },
      },
      ['status'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(_args, ctx) {
      try {
        if (ctx.inBand?.urlElicitation) {
          // 2026-07-28: the link goes out as a round of its own; the retry carries the person's answer
          const answer = ctx.inBand.responses[LINK_KEY] as { action?: unknown } | undefined;
          const link = await pairing.link();
          if (link && answer === undefined)
            return inputRequired({
              inputRequests: {
                [LINK_KEY]: inputRequired.elicitUrl({
                  url: link.verificationUriComplete ?? link.verificationUri,
                  message: linkMessage(link),
                }),
              },
            });
          // declined or dismissed: nobody will approve it now, so say where it waits instead of waiting
          if (link && answer?.action !== 'accept') return okResult(pairing.pendingResult(link));
        }
        const result = await pairing.pair({
          signal: ctx.signal,
          progress: (elapsed, total, message) => ctx.progress?.(elapsed, total, message),
          showLink: (p: PendingPairing) => {
            complete = ctx.elicitUrl?.(p.verificationUriComplete ?? p.verificationUri, linkMessage(p));
          },
          paired: () => {
            complete?.();
            complete = undefined;
          },
        });
        return okResult(result);
      } catch (err) {
        if (err instanceof PairingFailedError) return textError(err.message);
        throw err;
      }
    },
  };
}
