// The model card, which the MCP server serves as ui://valem/model-card.html and the share routes
// serve outside any chat.
import { singlePageConfig } from './single-page.js';

export default singlePageConfig('model-card.html');
