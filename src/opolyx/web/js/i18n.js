// Message catalogs (src/opolyx/i18n/catalogs, served at /data/i18n) and amount formatting.
export const LANGUAGES = ['en', 'de', 'pt', 'fr', 'es', 'zh'];
const cache = {};
let lang = 'en';
let catalog = {};
let fallback = {};

async function fetchCatalog(code) {
  if (!cache[code]) {
    cache[code] = fetch(`/data/i18n/${code}.json`).then((r) => {
      if (!r.ok) throw new Error(`no catalog ${code}`);
      return r.json();
    });
  }
  return cache[code];
}

export async function loadLanguage(code) {
  if (!LANGUAGES.includes(code)) code = 'en';
  const [cat, en] = await Promise.all([fetchCatalog(code), fetchCatalog('en')]);
  lang = code;
  catalog = cat;
  fallback = en;
  document.documentElement.lang = code === 'zh' ? 'zh-CN' : code;
  return code;
}

export function currentLanguage() { return lang; }

export function has(key) { return key in catalog || key in fallback; }

const pluralRules = {};

/** The CLDR plural category of `n` in the current language (the same rules Babel applies in Python). */
export function pluralForm(n, code = lang) {
  pluralRules[code] ||= new Intl.PluralRules(code === 'zh' ? 'zh-CN' : code);
  return pluralRules[code].select(Number(n));
}

/** The message `key` with `{name}` placeholders filled from `params`; a counted message (an object of plural
 * forms in the catalog) takes the form that fits `params.n`. */
export function t(key, params) {
  let text = key in catalog ? catalog[key] : fallback[key];
  if (text === undefined) return key;
  if (typeof text === 'object') {
    const n = params && params.n;
    text = (typeof n === 'number' && text[pluralForm(n, key in catalog ? lang : 'en')]) || text.other;
  }
  if (params) text = text.replace(/\{(\w+)\}/g, (m, name) => (params[name] ?? m));
  return text;
}

/** Mirrors opolyx.i18n.amounts.format_amount: 15000 → "15,000" (en), "15.000" (de), "1.5万" (zh). */
export function formatAmount(amount, code = lang) {
  if (amount === null || amount === undefined) return '';
  if (code === 'zh') {
    const sign = amount < 0 ? '-' : '';
    const a = Math.abs(amount);
    if (a >= 10000) {
      // Python's format rounds exact binary ties (x.125, x.625) to even; toFixed rounds them up.
      const tie = a % 10000 === 1250 || a % 10000 === 6250;
      const text = ((tie ? a - 1 : a) / 10000).toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
      return `${sign}${text}万`;
    }
    return `${sign}${a}`;
  }
  return new Intl.NumberFormat(code).format(amount);
}

export function guessLanguage() {
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const code = String(l).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(code)) return code;
  }
  return 'en';
}
