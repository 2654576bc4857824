/** Static resources a tool group adds to the server (listed and read alongside calc's own). */
import type { ResourceContent, StaticResource } from './resources.js';

export interface ResourceProvider {
  resources: StaticResource[];
  /** The content, or undefined when the URI is not one of this provider's. */
  read(uri: string): ResourceContent | undefined;
}
