// Entry point: load the language and session, then render the app.
import { App } from './app.js';
import { boot } from './controller.js';
import { html, render } from './html.js';

boot().finally(() => render(html`<${App} />`, document.getElementById('app')));
