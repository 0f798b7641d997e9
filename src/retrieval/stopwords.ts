/**
 * English function words dropped before indexing. Deliberately short: verbs and nouns that carry meaning
 * for tools (get, list, new, all, on, off, up, down) stay, and inverse document frequency already damps
 * the words that are common in this library.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against am an and any are as at be because been before being below between both but by
  can could did do does doing during each either few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just let me more most my myself nor of once only or other ought our ours
  ourselves own same shall she should so some such than that the their theirs them themselves then there these they this
  those through to too under until very via was we were what when where which while who whom whose why will with within
  would you your yours yourself yourselves please want need like also etc e g eg ie`
    .split(/\s+/)
    .filter(Boolean),
);
