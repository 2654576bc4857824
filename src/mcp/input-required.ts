/**
 * MCP 2026-07-28 multi-round trips (`input_required` results): a server there cannot send its
 * client a request, so a tool that needs the client (pair_browser's link, an llm effect's
 * completion) answers `input_required` with the requests, and the client retries the same call
 * with its answers (`inputResponses`) and our `requestState` echoed back. The state is signed
 * (the SDK's HMAC codec) with a key of this process: a retry must come back to the process that
 * asked, which holds what waits for the answer anyway.
 */
import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  inputRequired,
  type CreateMessageRequestParams,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { SamplingQueue } from '../service/effects/sampling-queue.js';
import type { ToolResult } from './results.js';

/** What a round carries through the client: the llm completions it asked for and the call's result. */
export interface SamplingRound {
  kind: 'sampling';
  /** The `inputRequests` keys this round handed out (only those may be answered on the retry). */
  keys: string[];
  /** The call's own result: the call ran once, the retry only answers the completions. */
  result: ToolResult;
}

/** Ten minutes to answer, the SDK codec's default; rounds are bound to tools/call. */
export const roundStateCodec = createRequestStateCodec<SamplingRound>({
  key: randomBytes(32),
  ttlSeconds: 600,
  bind: (ctx) => ctx.mcpReq.method,
});

/** How long a write that dispatched llm effects waits for their completions to be asked (they park a moment later). */
const PARK_WAIT_MS = 2_000;

/** The number of llm effects a write's result says it dispatched. */
function llmDispatches(result: ToolResult): number {
  const dispatched = result.structuredContent?.dispatchedEffects;
  return Array.isArray(dispatched)
    ? dispatched.filter(
        (d) => typeof d === 'object' && d !== null && (d as { executor?: unknown }).executor === 'llm',
      ).length
    : 0;
}

/**
 * One tools/call of a 2026-07-28 client that samples: runs the tool (or, on a retry, hands the
 * client's completions to the llm runs waiting for them and answers the call's kept result), then
 * carries out every completion still waiting as an `input_required` round.
 */
export async function withSamplingRounds(
  queue: SamplingQueue,
  ctx: ServerContext,
  run: () => Promise<ToolResult | InputRequiredResult>,
): Promise<ToolResult | InputRequiredResult> {
  queue.seen();
  const round = ctx.mcpReq.requestState<SamplingRound>();
  let result: ToolResult;
  if (round?.kind === 'sampling') {
    const answers = ctx.mcpReq.inputResponses ?? {};
    for (const key of round.keys)
      if (Object.hasOwn(answers, key)) queue.answer(key, answers[key]);
      else queue.refuse(key, 'the client did not answer');
    result = round.result;
  } else {
    const ran = await run();
    if ('resultType' in ran) return ran;
    result = ran;
    const wanted = llmDispatches(result);
    if (wanted > 0) await queue.parked(wanted, PARK_WAIT_MS);
  }
  const parked = queue.take();
  if (parked.length === 0) return result;
  return inputRequired({
    inputRequests: Object.fromEntries(
      parked.map((p) => [
        p.key,
        inputRequired.createMessage(p.params as unknown as CreateMessageRequestParams),
      ]),
    ),
    requestState: await roundStateCodec.mint(
      { kind: 'sampling', keys: parked.map((p) => p.key), result },
      ctx,
    ),
  });
}

export { inputRequired, type InputRequiredResult };
