/**
 * pair_browser (remote mode with `--browser` only): pairs this MCP server with a browser session
 * so a person can watch and edit the agent's models in the sandbox. Waits up to 60 s for the
 * approval with progress notifications, stops at once when cancelled, and hands the link to the
 * person through a URL-mode elicitation when the client supports one.
 */
import { PairingFailedError, type BrowserPairing, type PendingPairing } from '../remote/browser-pairing.js';
import { okResult, textError } from './results.js';
import { input, output, type ToolDefinition } from './tool.js';

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
        const result = await pairing.pair({
          signal: ctx.signal,
          progress: (elapsed, total, message) => ctx.progress?.(elapsed, total, message),
          showLink: (p: PendingPairing) => {
            complete = ctx.elicitUrl?.(
              p.verificationUriComplete ?? p.verificationUri,
              `Open this link and approve code ${p.userCode} to let the agent work with you on live models.`,
            );
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
