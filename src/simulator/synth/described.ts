import { faker, rng } from './faker.js';
import type { PageLink } from './echo.js';
import type { Site, Walk } from './site.js';

/** A value the description fixes: "The object type, which is always `chat.completion`", "Always 'list'". */
const ALWAYS = /\balways\s+(?:be\s+|set\s+to\s+|equal\s+to\s+)?[`"']([\w.:/-]{1,64})[`"']/i;
/** A description that begins by calling the value a phone number ("The recipient's phone number (in E.164)…"). */
const PHONE = /^(?:the|a|an)\s+(?:[\w'’-]+\s+){0,3}(?:phone|telephone|mobile)\s+number\b/i;
/** Why a generation stopped, where the API names it without an enum: a token, as LLM APIs write it. */
const STOP_REASON = /^(?:finish|stop|end|termination|completion)_reason$/;
const STOP_TOKENS = ['stop', 'stop', 'stop', 'length', 'end_turn', 'max_tokens', 'tool_calls', 'content_filter'];

/** A listing envelope's link to itself or another page (`next_page_uri`, `first_page_url`, `uri`, `self_link`). */
const LINK = /^(?:(next|previous|prev|first|self|current)_(?:page_)?)?(uri|url|link|href)$/;

/**
 * A link to this listing, or to its next, previous or first page (the page parameter moved, the rest as sent; null
 * before the first). A
 * `…uri` is the path from the API's own base (`/2010-04-01/Accounts/AC…/Messages.json?PageSize=2&Page=1`, as Twilio
 * and Stripe write it), a `…url` or link the absolute URL on the API's server.
 */
function pageLink(page: PageLink, which: string | undefined, kind: string): string | null | undefined {
  const query = new URLSearchParams(page.query);
  if (which === 'next' || which === 'previous' || which === 'prev' || which === 'first') {
    if (page.pageParam === undefined) return undefined;
    const wanted = which === 'next' ? page.current + 1 : which === 'first' ? page.firstPage : page.current - 1;
    if (wanted < page.firstPage) return null;
    query.set(page.pageParam, String(wanted));
  }
  const search = query.size ? `?${query}` : '';
  return kind === 'uri' || !page.server ? `${page.path}${search}` : `${page.server}${page.path}${search}`;
}

/** What a description says, read once per description: the same few thousand recur on every call. */
interface Said {
  always: string | undefined;
  phone: boolean;
}
const saids = new Map<string, Said>();

function saidOf(description: string): Said {
  let said = saids.get(description);
  if (said === undefined) {
    said = { always: ALWAYS.exec(description)?.[1], phone: PHONE.test(description) };
    if (saids.size >= 20_000) saids.clear();
    saids.set(description, said);
  }
  return said;
}

/**
 * A listing's link at this field (`next_page_uri`…): null where there is no such page (the previous of the first);
 * undefined where the field is no page link.
 */
export function linkFor(site: Site, walk: Walk): string | null | undefined {
  const page = walk.echo.page;
  if (site.depth !== 1 || page === undefined) return undefined;
  const link = LINK.exec(site.key);
  // Only a paged listing's `uri` is its own link: another GET's `uri` is what it fetched (a download's).
  if (!link || page.pageParam === undefined) return undefined;
  return pageLink(page, link[1], link[2]!);
}

/**
 * A string the document's words or the API's path decide, where the schema has no enum, const or example: a value
 * its description says it always has, a listing's links to its own pages, the resource type of an `object`
 * discriminator (`chat.completion` for `/chat/completions`, `list` for a listing's envelope), a stop reason's token,
 * a phone number by its description.
 */
export function describedString(description: string | undefined, site: Site, walk: Walk): string | undefined {
  const said = description === undefined ? undefined : saidOf(description);
  if (said?.always !== undefined) return said.always;
  const link = linkFor(site, walk);
  if (link !== undefined) return link ?? undefined;
  if (site.key === 'object' && site.inRecord && walk.echo.typeName !== undefined)
    return site.depth === 1 && walk.echo.listing ? 'list' : walk.echo.typeName;
  if (STOP_REASON.test(site.key)) return rng.pick(STOP_TOKENS);
  if (said?.phone) return `+1${faker.string.numeric(10)}`;
  return undefined;
}
