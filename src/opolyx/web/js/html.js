// htm bound to Preact: tagged templates instead of JSX, so no build step is needed.
import { h, render } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
export { render };
