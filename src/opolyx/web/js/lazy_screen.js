// Screens that no first visit needs (the replay viewer, the account screens, the operator's page) are fetched when first opened, not with the first
// load: that keeps the start screen's bytes inside the budget (benchmarks/page_weight.py, under 150 KiB).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { t } from './i18n.js';

/** A component that imports `load()` once and then renders its export `name` with the same props. Its
 * `preload()` fetches the module ahead of need, so that the screen then renders at once. */
export function lazyScreen(load, name) {
  let loaded = null;
  let loading = null;
  const fetchIt = () => {
    loading = loading || load().then((m) => { loaded = m[name]; return loaded; });
    return loading;
  };
  function LazyScreen(props) {
    const [Screen, setScreen] = useState(() => loaded);
    useEffect(() => {
      if (!Screen) fetchIt().then((s) => setScreen(() => s));
    }, []);
    return Screen ? html`<${Screen} ...${props} />` : html`<main class="account-screen"><p>${t('conn.loading')}</p></main>`;
  }
  LazyScreen.preload = fetchIt;
  return LazyScreen;
}
