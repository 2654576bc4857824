/** CollaborationWatcher: its input's values, then one value read from each collaborate peer. */
import { DOUBLE } from '../../../engine/row.js';
import type { ComponentImpl } from '../../component.js';
import { collaborator } from '../../component.js';
import { filterNode, proImpl, singleInput } from '../../pro-nodes.js';

export const COLLABORATION_WATCHER: ComponentImpl = proImpl('CollaborationWatcher', (ctx) => {
  const input = singleInput(ctx);
  // Peers in the order their collaborate.<role> attributes are written.
  const peers = [...ctx.collaborate.keys()].map((role) => ({ role, node: collaborator(ctx, role)! }));
  return filterNode(ctx, input.dimension + peers.length, (out, offset) => {
    input.next(out, offset);
    let at = offset + input.dimension;
    for (const { role, node } of peers) {
      const v = node.collaborate(role);
      if (typeof v === 'string') out.setText(at++, v);
      else {
        out.nums[at] = v;
        out.kinds[at++] = DOUBLE;
      }
    }
  });
});
