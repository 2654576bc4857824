// The browser sandbox (`modelworks serve` at /sandbox); it reuses the card's view renderer.
import { singlePageConfig } from './single-page.js';

export default singlePageConfig('sandbox.html');
