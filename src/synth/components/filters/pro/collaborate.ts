/** CollaborationWatcher: its input's values, then every data point of each collaborate peer. */
import type { ComponentImpl } from '../../component.js';
import { filterNode, proImpl, singleInput } from '../../pro-nodes.js';

export const COLLABORATION_WATCHER: ComponentImpl = proImpl('CollaborationWatcher', (ctx) => {
  const input = singleInput(ctx);
  // Peers in the order their collaborate.<role> attributes are written (the engine keeps it).
  const peers = [...ctx.collaborators.values()];
  const width = peers.reduce((n, p) => n + p.collaborateDimension, 0);
  return filterNode(ctx, input.dimension + width, (out, offset) => {
    input.next(out, offset);
    let at = offset + input.dimension;
    for (const peer of peers) {
      peer.collaborate(out, at);
      at += peer.collaborateDimension;
    }
  });
});
