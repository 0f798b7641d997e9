/**
 * The category vocabulary every tool is filed under: APIs.guru's `x-apisguru-categories` (resources/categories.yaml)
 * plus the two its documents use beyond that file (entertainment, transport). Documents carry their own category
 * (see apiCategory for where their text overrules it); everything else (documents without one, ToolBench, MCP and
 * OpenAI imports) is classified by keyword.
 */

/**
 * Keywords per category. A keyword matches a whole word (plural included); one ending in `*` matches every word
 * that starts with it, so `financ*` finds "finance" and "financial". Categories are listed in tie-break order:
 * when two score the same, the more specific one (earlier) wins.
 */
const KEYWORDS: Record<string, string[]> = {
  payment: ['payment*', 'pay', 'checkout*', 'billing', 'invoic*', 'refund*', 'stripe', 'paypal', 'credit card', 'debit card', 'card payment*', 'merchant', 'payout*', 'chargeback*', 'acquirer', 'remittance*'],
  financial: ['financ*', 'bank*', 'stock', 'stock market', 'trading', 'trader', 'crypto*', 'bitcoin', 'ethereum', 'blockchain', 'currenc*', 'forex', 'exchange rate', 'accounting', 'accountant', 'ledger', 'tax', 'taxes', 'vat', 'loan', 'credit', 'investment*', 'investor', 'portfolio', 'market data', 'insurance', 'budget', 'expense', 'wallet', 'fund', 'equity', 'dividend*', 'bond', 'mortgage'],
  email: ['email*', 'e-mail*', 'mail', 'mailing', 'smtp', 'imap', 'inbox*', 'mailbox*', 'newsletter*', 'mx record'],
  messaging: ['messag*', 'chat', 'chats', 'chatting', 'sms', 'mms', 'whatsapp', 'telegram', 'slack', 'push notification*', 'notification*', 'message queue*', 'pubsub', 'pub/sub', 'bot', 'chatbot*'],
  telecom: ['telecom*', 'phone*', 'telephon*', 'voip', 'voice call*', 'phone call*', 'calling', 'fax', 'sim', 'sim card*', 'mobile number*', 'carrier*', 'dial*', 'twilio', 'ivr', 'radio', 'cellular', 'roaming', 'top-up', 'topup*'],
  location: ['geo*', 'location*', 'map', 'maps', 'mapping', 'address', 'addresses', 'postcode*', 'postal code*', 'zip code*', 'gps', 'coordinate*', 'latitude', 'longitude', 'place', 'places', 'timezone*', 'time zone*', 'elevation', 'routing', 'distance', 'weather', 'forecast*', 'ip lookup', 'ip address*', 'marine'],
  transport: ['transport*', 'flight*', 'airline*', 'airport*', 'train', 'rail*', 'transit', 'bus', 'vehicle*', 'car', 'parking', 'traffic', 'shipping', 'shipment*', 'logistic*', 'freight', 'parcel*', 'tracking number*', 'taxi*', 'ride', 'travel*', 'hotel*', 'trip', 'station', 'departure*', 'arrival*', 'fleet'],
  entertainment: ['entertain*', 'game', 'gaming', 'gamer*', 'movie*', 'film*', 'sport*', 'football', 'soccer', 'basketball', 'baseball', 'hockey', 'nba', 'nfl', 'mlb', 'nhl', 'cricket', 'tennis', 'golf', 'esport*', 'betting', 'bet', 'lottery', 'joke*', 'trivia', 'anime', 'comic*', 'celebrit*', 'horoscope*', 'meme', 'tv show*', 'recipe*', 'cocktail*', 'player', 'league*', 'fantasy', 'tournament*'],
  media: ['media', 'multimedia', 'video*', 'image*', 'photo*', 'picture*', 'audio', 'music*', 'song*', 'podcast*', 'stream', 'streaming', 'youtube', 'spotify', 'playlist*', 'gif', 'news', 'article', 'magazine*', 'book', 'radio station*', 'thumbnail*', 'album', 'artist', 'lyrics', 'broadcast*'],
  text: ['text', 'texts', 'translat*', 'language*', 'nlp', 'natural language', 'sentiment*', 'spell*', 'grammar', 'dictionar*', 'word', 'summar*', 'paraphras*', 'pdf', 'ocr', 'quote', 'lorem', 'tokeniz*', 'keyword extraction', 'linguistic*', 'braille'],
  machine_learning: ['machine learning', 'ml', 'predict*', 'inference', 'neural', 'deep learning', 'ai', 'artificial intelligence', 'llm', 'gpt', 'openai', 'embedding*', 'classif*', 'computer vision', 'face detection', 'face recognition', 'object detection', 'speech recognition', 'speech to text', 'text to speech', 'training job*', 'dataset labeling', 'sagemaker'],
  search: ['search*', 'lookup*', 'look up', 'query engine', 'indexing', 'autocomplete', 'suggestion*', 'crawl*', 'scrap*', 'web archive'],
  social: ['social', 'twitter', 'tweet*', 'facebook', 'instagram', 'linkedin', 'reddit', 'tiktok', 'follower*', 'friend*', 'community', 'communities', 'forum*', 'mastodon', 'influencer*', 'timeline', 'hashtag*'],
  ecommerce: ['ecommerce', 'e-commerce', 'shop', 'shopping', 'online store', 'cart', 'order', 'orders', 'product', 'products', 'catalog*', 'catalogue*', 'inventory', 'retail*', 'marketplace*', 'seller*', 'buyer*', 'sku', 'coupon*', 'discount*', 'fulfil*', 'amazon', 'ebay', 'etsy', 'pricing', 'merchandis*', 'warehouse*'],
  marketing: ['marketing', 'campaign*', 'advertis*', 'ad', 'ads', 'seo', 'lead', 'affiliate*', 'promotion*', 'audience*', 'branding', 'click tracking', 'url shortener*', 'short link*', 'newsletter campaign*', 'conversion tracking'],
  customer_relation: ['crm', 'customer relation*', 'customer', 'contact', 'sales', 'deal', 'salesforce', 'hubspot', 'loyalty', 'membership*'],
  support: ['support', 'helpdesk', 'help desk', 'ticket', 'zendesk', 'freshdesk', 'faq', 'knowledge base', 'live chat'],
  analytics: ['analytic*', 'metric*', 'statistic*', 'stats', 'report', 'reporting', 'insight*', 'dashboard*', 'tracking', 'measurement*', 'kpi', 'event tracking', 'data warehouse*', 'bigquery', 'visualiz*', 'chart', 'benchmark*'],
  monitoring: ['monitor*', 'uptime', 'alert*', 'incident*', 'log', 'logging', 'observab*', 'tracing', 'health check*', 'status page*', 'apm', 'ping', 'diagnos*', 'outage*'],
  security: ['secur*', 'auth', 'authenticat*', 'authoriz*', 'oauth*', 'password*', 'credential*', 'identity', 'identities', 'threat*', 'malware', 'virus*', 'vulnerab*', 'fraud*', 'captcha', 'encrypt*', 'decrypt*', 'certificate', 'ssl', 'tls', 'firewall*', 'phishing', 'breach*', 'spam', 'blacklist*', 'blocklist*', 'reputation', 'permission*', 'access control', 'key vault*', 'secret', 'verification', 'kyc', 'compliance', 'audit*', 'sso', 'mfa', '2fa', 'login'],
  storage: ['storage', 'file', 'upload*', 'download*', 'drive', 'bucket', 'blob', 'backup*', 'archiv*', 'folder', 'dropbox', 'object store', 'disk', 'volume'],
  backend: ['backend', 'back-end', 'database*', 'sql', 'nosql', 'baas', 'graphql', 'cache', 'caching', 'key-value', 'redis', 'mongo*', 'postgres*', 'vector database*', 'datastore*'],
  cloud: ['cloud', 'aws', 'azure', 'gcp', 'compute', 'instance', 'virtual machine*', 'vm', 'kubernetes', 'container*', 'cluster*', 'serverless', 'lambda', 'function app*', 'resource group*', 'provision*', 'autoscal*', 'load balancer*', 'virtual network*', 'infrastructure', 'datacenter*', 'data center*'],
  hosting: ['hosting', 'hosted', 'domain', 'dns', 'website', 'web site', 'cdn', 'web server*', 'redirect*', 'whois', 'deploy*', 'registrar'],
  iot: ['iot', 'internet of things', 'device', 'sensor*', 'smart home', 'thermostat*', 'telemetry', 'firmware', 'hardware', 'meter', 'energy', 'charger*', 'charging', 'robot*', 'drone*', 'printer*', '3d print*'],
  education: ['educat*', 'school*', 'course', 'student*', 'teacher*', 'learning', 'university', 'universities', 'college*', 'lesson*', 'classroom*', 'quiz*', 'exam', 'academ*', 'curricul*', 'tutor*'],
  enterprise: ['enterprise*', 'erp', 'hr', 'hris', 'human resource*', 'payroll', 'employee*', 'workforce', 'staff', 'recruit*', 'hiring', 'job', 'applicant*', 'supplier*', 'procurement', 'asset management', 'pim'],
  project_management: ['project', 'task', 'issue', 'sprint*', 'kanban', 'board', 'milestone*', 'backlog*', 'jira', 'trello', 'asana', 'todo', 'to-do'],
  time_management: ['calendar*', 'schedul*', 'appointment*', 'reminder*', 'meeting*', 'availability', 'timesheet*', 'time tracking', 'time entry', 'time entries', 'shift', 'booking*', 'reservation*'],
  collaboration: ['collaborat*', 'team', 'workspace*', 'wiki*', 'document', 'note', 'whiteboard*', 'sharing', 'github', 'gitlab', 'bitbucket', 'repositor*', 'pull request*', 'notion', 'confluence', 'video conferenc*', 'etherpad'],
  forms: ['form', 'survey*', 'questionnaire*', 'poll', 'feedback', 'submission*'],
  developer_tools: ['developer*', 'sdk', 'source code', 'git', 'build', 'ci', 'continuous integration', 'webhook*', 'json', 'xml', 'yaml', 'regex*', 'uuid', 'hash', 'base64', 'test', 'testing', 'mock*', 'debug*', 'devops', 'package', 'npm', 'docker', 'openapi', 'swagger', 'schema', 'validat*', 'convert*', 'screenshot*', 'qr code*', 'barcode*', 'http', 'compiler', 'code analysis'],
  open_data: ['open data', 'government*', 'dataset*', 'data set*', 'census', 'population', 'health*', 'covid*', 'medical', 'medicine*', 'drug*', 'disease*', 'hospital*', 'nutrition*', 'food', 'climate', 'environment*', 'air quality', 'earthquake*', 'space', 'nasa', 'planet*', 'astronom*', 'museum*', 'history', 'holiday', 'law', 'legal', 'court*', 'election*', 'parliament*', 'registry', 'science', 'scientific', 'research*', 'biolog*', 'chemi*', 'gene', 'genes', 'genom*', 'species', 'department', 'ministry', 'municipal*', 'state board'],
  frontend: ['frontend', 'front-end', 'ui component*', 'css', 'html', 'font*', 'icon*', 'color*', 'colour*', 'theme*', 'widget*'],
  tools: ['tool', 'utility', 'utilities', 'generator*', 'random', 'calculator*', 'converter*', 'unit conversion*'],
};

/** Every category a tool can carry, in tie-break order. */
export const CATEGORIES: readonly string[] = Object.keys(KEYWORDS);

/** The catch-all for text that mentions nothing the classifier knows. */
export const FALLBACK_CATEGORY = 'tools';

const MATCHERS = CATEGORIES.map((category) => ({
  category,
  pattern: new RegExp(`(?<![a-z0-9])(?:${KEYWORDS[category]!.map(keywordPattern).join('|')})`, 'g'),
}));

function keywordPattern(keyword: string): string {
  const prefix = keyword.endsWith('*');
  const words = (prefix ? keyword.slice(0, -1) : keyword).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, '[\\s_-]+');
  return prefix ? words : `${words}(?:s|es)?(?![a-z0-9])`;
}

/**
 * APIs.guru's `x-apisguru-categories` (or any raw category) as one snake_case category: the first of an array.
 * Some documents carry a string instead of an array, and the bundled directory has one whose string was split
 * into an array of letters (["s","e","c",…]); both read as the string.
 */
export function normalizeCategory(raw: unknown): string | undefined {
  let value = raw;
  if (Array.isArray(value)) {
    value = value.every((item) => typeof item === 'string' && item.length === 1) ? value.join('') : value.find((item) => typeof item === 'string' && item.trim());
  }
  if (typeof value !== 'string') return undefined;
  const category = value
    .trim()
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return category || undefined;
}

/**
 * A category from free text (an API title and description, a tool's name and description): the vocabulary
 * entry whose keyword stems occur most often, earlier entries winning ties; FALLBACK_CATEGORY when none occur.
 */
export function inferCategory(text: string): string {
  const counts = keywordCounts(text);
  let best = FALLBACK_CATEGORY;
  let bestScore = 0;
  for (const category of CATEGORIES) {
    if (counts.get(category)! > bestScore) {
      best = category;
      bestScore = counts.get(category)!;
    }
  }
  return best;
}

/**
 * Categories of the ways an API reaches people. APIs.guru files an API that offers several under one of them, not
 * always the one it is about: ClickSend, an SMS gateway that also sends email, letters and faxes, is `email`;
 * BulkSMS and Twilio's Messaging and Chat APIs are `telecom`.
 */
const CHANNELS: readonly string[] = ['email', 'messaging', 'telecom'];

/** Times the text must name another channel, and more often than the declared one, to move an API there. */
const CHANNEL_EVIDENCE = 2;

/**
 * An API's category: the one its document declares (APIs.guru's `x-apisguru-categories`), else the one its text
 * (title, description, tag names) names most. A declared channel category gives way to the channel the text names
 * clearly more; a single mention (a "notification" in a telecom standard) moves nothing.
 */
export function apiCategory(declared: unknown, text: string): string {
  const category = normalizeCategory(declared);
  if (category === undefined) return inferCategory(text);
  if (!CHANNELS.includes(category)) return category;
  const counts = keywordCounts(text);
  let best = category;
  for (const channel of CHANNELS) {
    if (counts.get(channel)! >= CHANNEL_EVIDENCE && counts.get(channel)! > counts.get(best)!) best = channel;
  }
  return best;
}

/** How many times the text names each category's keywords. */
function keywordCounts(text: string): Map<string, number> {
  // camelCase names (getWeatherForecast) become words first
  const lower = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const counts = new Map<string, number>();
  for (const { category, pattern } of MATCHERS) {
    pattern.lastIndex = 0;
    let count = 0;
    while (pattern.exec(lower) !== null) count++;
    counts.set(category, count);
  }
  return counts;
}
