import { faker, rng } from './faker.js';
import { outOfUse } from './flags.js';
import { dateFor, dateString, dateTimeString } from './formats.js';
import { hash32 } from './random.js';

/** The person an object describes: its first name, last name, email and username agree with each other. */
export interface Persona {
  first: string;
  last: string;
  /** Their payment card, drawn when a field asks for it: the brand, the number and its `last4` agree. */
  card?: Card;
}

export interface Card {
  brand: string;
  number: string;
}

/**
 * Where a value goes: its field's name key (see `nameKey`), the key of the object or list holding it, and that object's
 * persona.
 */
export interface FieldContext {
  key: string;
  parent: string;
  persona: () => Persona;
}

/** A typical range for a numeric field; the walker intersects it with the schema's bounds. */
export interface NumberHint {
  min: number;
  max: number;
  decimals: number;
  /** A range no value can leave (a latitude's, a percentage's): the API's own documented values are held to it too. */
  firm?: true;
}

const any = (...words: string[]) => new RegExp(`(?:^|_)(?:${words.join('|')})(?:_|$)`);
const last = (...words: string[]) => new RegExp(`(?:^|_)(?:${words.join('|')})$`);

export function newPersona(): Persona {
  return { first: faker.person.firstName(), last: faker.person.lastName() };
}

/** Card networks as APIs name them, with faker's issuer for numbers of that network. */
const CARD_BRANDS: [string, string][] = [
  ['Visa', 'visa'],
  ['Visa', 'visa'],
  ['Mastercard', 'mastercard'],
  ['American Express', 'american_express'],
  ['Discover', 'discover'],
];

function cardOf(ctx: FieldContext): Card {
  const persona = ctx.persona();
  if (!persona.card) {
    const [brand, issuer] = rng.pick(CARD_BRANDS);
    persona.card = { brand, number: faker.finance.creditCardNumber(issuer).replace(/\D/g, '') };
  }
  return persona.card;
}

const ascii = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

function email(ctx: FieldContext): string {
  const { first, last: family } = ctx.persona();
  const domain = rng.pick([
    'gmail.com',
    'yahoo.com',
    'outlook.com',
    'hotmail.com',
    'example.com',
    faker.internet.domainName(),
  ]);
  return `${ascii(first)}${rng.pick(['.', '_', ''])}${ascii(family)}${rng.chance(0.3) ? rng.int(1, 99) : ''}@${domain}`;
}

function username(ctx: FieldContext): string {
  const { first, last: family } = ctx.persona();
  return rng.pick([
    `${ascii(first)}${ascii(family).slice(0, 1)}${rng.int(1, 999)}`,
    `${ascii(first)}_${ascii(family)}`,
    `${ascii(first)}.${ascii(family)}`,
  ]);
}

const fullName = (ctx: FieldContext) => {
  const { first, last: family } = ctx.persona();
  return `${first} ${family}`;
};

const titleCase = (text: string) => text.replace(/(^|\s)\S/g, (c) => c.toUpperCase());
/** A short noun phrase ("quarterly budget", "harbor"): reads like a name, where random words read like noise. */
const phrase = () => {
  const roll = rng.next();
  if (roll < 0.35) return faker.word.noun();
  if (roll < 0.8) return `${faker.word.adjective()} ${faker.word.noun()}`;
  return `${faker.word.noun()} ${faker.word.noun()}`;
};
const title = () =>
  titleCase(rng.chance(0.5) ? phrase() : `${faker.word.adjective()} ${faker.word.noun()} ${faker.word.noun()}`);
const sentence = () => {
  const text = faker.hacker.phrase();
  return text.charAt(0).toUpperCase() + text.slice(1);
};
const kebab = () =>
  phrase()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
const hex = (length: number) => faker.string.hexadecimal({ length, casing: 'lower', prefix: '' });
const money = () => (rng.int(100, 99_999) / 100).toFixed(2);
const upperCode = (length: number) => faker.string.alphanumeric({ length, casing: 'upper' });

/** Styles of string ids; one per field name, so an API's ids look alike from call to call. */
const ID_STYLES: (() => string)[] = [
  () => String(rng.int(10_000, 999_999_999)),
  () => hex(24),
  () => faker.string.alphanumeric(16),
  () => faker.string.uuid(),
];

function stringId(ctx: FieldContext): string {
  return ID_STYLES[hash32(ctx.key) % ID_STYLES.length]!();
}

/** Holders of a payment card's fields: their `brand` is a card network, not a company. */
const CARD_PARENT =
  /(?:^|_)(?:card|cards|payment_method|payment_methods|source|sources|default_source|payment_card|credit_card|debit_card|card_details|card_present|wallet)(?:_|$)/;
const LONGITUDE = /(?:^|_)(?:lon|lng|longitude)(?:_|$)|^long$/;
const PERSON =
  /(?:^|_)(?:user|users|person|people|customer|author|owner|member|employee|contact|player|artist|driver|patient|student|teacher|agent|recipient|sender|buyer|seller|profile|creator|assignee|reviewer|manager|admin|guest|account|client|participant|attendee|speaker|actor|director|candidate|applicant|subscriber|follower|friend|reporter|editor|writer|doctor|physician|traveler|passenger|tenant|landlord|coach|athlete|representative|individual|human|signer|approver|requester|submitter|organizer|host_user)(?:_|$)/;
const COMPANY =
  /(?:^|_)(?:company|companies|organization|organisation|org|employer|business|brand|publisher|manufacturer|vendor|merchant|agency|provider|supplier|carrier|bank|institution|firm|partner|store|shop|retailer|airline|sponsor)(?:_|$)/;
const PRODUCT = /(?:^|_)(?:product|products|item|items|sku|good|goods|article|merchandise|offer|listing)(?:_|$)/;
const PET = /(?:^|_)(?:pet|pets|animal|dog|cat|horse|breed)(?:_|$)/;
const TECH =
  /(?:^|_)(?:app|application|project|repo|repository|service|package|library|bucket|database|db|table|cluster|instance|server|environment|env|workspace|channel|queue|topic|namespace|branch|container|image|function|job|pipeline|deployment|model|dataset|index|schema|key|secret|volume|network|node|pod|zone|region|stack|resource|module|plugin|bot|webhook|integration|domain)(?:_|$)/;
const PLACE =
  /(?:^|_)(?:city|town|place|location|venue|destination|origin|airport|station|hotel|restaurant|building|site|area|neighborhood)(?:_|$)/;
const GEO_PARENT =
  /(?:^|_)(?:address|addresses|location|billing|shipping|geo|place|residence|postal|mailing|home|office)(?:_|$)/;

/** Whether a field's name says it holds a person (`owner`, `author_info`): such an object gets a person of its own. */
export function namesPerson(key: string): boolean {
  return PERSON.test(key);
}

/** A realistic `name` from what holds it: a user's name is a person's, a company's a company's, a repo's a slug. */
function nameFor(ctx: FieldContext): string {
  const noun = ctx.key === 'name' || ctx.key === 'display_name' ? ctx.parent : ctx.key;
  if (PERSON.test(noun)) return fullName(ctx);
  if (COMPANY.test(noun)) return faker.company.name();
  if (PRODUCT.test(noun)) return faker.commerce.productName();
  if (PET.test(noun)) return faker.animal.petName();
  if (TECH.test(noun)) return kebab();
  if (/(?:^|_)country(?:_|$)/.test(noun)) return faker.location.country();
  if (/(?:^|_)(?:state|province)(?:_|$)/.test(noun)) return faker.location.state();
  if (/(?:^|_)street(?:_|$)/.test(noun)) return faker.location.street();
  if (PLACE.test(noun)) return faker.location.city();
  if (/(?:^|_)(?:file|document|attachment|upload)(?:_|$)/.test(noun)) return fileName();
  if (/(?:^|_)(?:category|categories|tag|tags|label|labels|genre|department|dept)(?:_|$)/.test(noun))
    return titleCase(faker.commerce.department());
  return title();
}

const EXTENSIONS = ['pdf', 'png', 'jpg', 'csv', 'json', 'txt', 'docx', 'xlsx', 'zip', 'mp4'];
const fileName = () =>
  `${phrase()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')}.${rng.pick(EXTENSIONS)}`;

const STATUSES = ['active', 'inactive', 'pending', 'completed', 'cancelled', 'processing', 'approved', 'failed'];

/**
 * Measurements by their name's last word, or a unit after it: a string field so named still holds a number
 * (`"TempF": "71.6"`, `"humidity": "64"`, `"WindMPH": "12.4"`, `"VisibilityMiles": "9.1"`).
 */
const MEASURE_WORDS = last(
  'humidity',
  'rh',
  'percent',
  'percentage',
  'pct',
  'pressure',
  'visibility',
  'uv_index',
  'precipitation',
  'rainfall',
  'wind_speed',
  'cloud_cover',
);
const MEASURE = new RegExp(
  `${MEASURE_WORDS.source}|(?:^|_)(?:wind|gust|visibility|wind_speed|wind_gust)` +
    '_(?:mph|kph|kmh|knots|kts|ms|miles|km)$|' +
    '(?:^|_)(?:temperature|temp|tempf|tempc|tempk|feels_like|feelslike|dew_point|dewpoint|wind_chill|heat_index)' +
    '(?:_(?:f|c|k|min|max|avg|high|low))?$',
);

type StringRule = [RegExp, (ctx: FieldContext) => string | undefined];

const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'];
const SKY = [
  'Clear',
  'Sunny',
  'Partly Cloudy',
  'Mostly Cloudy',
  'Overcast',
  'Light Rain',
  'Rain',
  'Showers',
  'Thunderstorms',
  'Snow',
  'Fog',
  'Haze',
  'Windy',
];
/** Where a `description` or `main` is the sky's (OpenWeather's `weather: [{main, description}]`), not prose. */
const WEATHER_PARENT = /(?:^|_)(?:weather|current|currently|conditions|observation|forecast|hourly|daily)(?:_|$)/;

/**
 * Field name → value, the first match giving one wins; the order settles overlaps (`email_address` is an email, not an
 * address).
 */
const STRING_RULES: StringRule[] = [
  [any('uuid', 'guid'), () => faker.string.uuid()],
  [any('card_brand', 'card_network', 'card_scheme', 'card_type'), (ctx) => cardOf(ctx).brand],
  [/^(?:brand|network|scheme)$/, (ctx) => (CARD_PARENT.test(ctx.parent) ? cardOf(ctx).brand : undefined)],
  [/^number$/, (ctx) => (CARD_PARENT.test(ctx.parent) ? cardOf(ctx).number : undefined)],
  [
    any('last4', 'last_4', 'last_four', 'last_four_digits', 'last4_digits', 'dynamic_last4'),
    (ctx) => cardOf(ctx).number.slice(-4),
  ],
  [any('card_number', 'credit_card', 'cc_number', 'pan'), (ctx) => cardOf(ctx).number],
  [any('funding', 'funding_type'), () => rng.pick(['credit', 'credit', 'debit', 'prepaid'])],
  [any('email', 'e_mail', 'mail', 'email_address'), email],
  [
    last('wind_dir', 'winddir', 'wind_direction', 'wind_cardinal', 'compass_direction', 'cardinal_direction'),
    () => rng.pick(COMPASS),
  ],
  [/^(?:weather|weather_condition|weather_description|weather_text|sky|sky_condition|sky_cover)$/, () => rng.pick(SKY)],
  [
    /^(?:condition|conditions|summary|description|main|text|icon_phrase)$/,
    (ctx) => (WEATHER_PARENT.test(ctx.parent) ? rng.pick(SKY) : undefined),
  ],
  [any('timezone', 'time_zone', 'tz'), () => faker.location.timeZone()],
  [any('ip', 'ip_address', 'ipv4', 'ip_addr', 'remote_addr', 'client_ip', 'server_ip'), () => faker.internet.ipv4()],
  [any('ipv6'), () => faker.internet.ipv6()],
  [any('mac', 'mac_address'), () => faker.internet.mac()],
  [any('user_agent', 'useragent'), () => faker.internet.userAgent()],
  [
    any(
      'image',
      'images',
      'img',
      'avatar',
      'photo',
      'photos',
      'picture',
      'pic',
      'thumbnail',
      'thumb',
      'logo',
      'icon',
      'banner',
      'cover',
      'poster',
      'headshot',
      'artwork',
    ),
    () =>
      `https://picsum.photos/seed/${faker.string.alphanumeric(8)}/` +
      `${rng.pick([320, 640, 800, 1024])}/${rng.pick([240, 480, 600, 768])}`,
  ],
  [
    any(
      'url',
      'uri',
      'link',
      'links',
      'href',
      'website',
      'homepage',
      'webpage',
      'endpoint',
      'callback',
      'redirect',
      'permalink',
      'src',
      'web',
    ),
    () => `${faker.internet.url({ appendSlash: false })}/${faker.word.noun()}/${rng.int(1, 99_999)}`,
  ],
  [any('domain', 'hostname', 'host', 'fqdn', 'host_name', 'domain_name'), () => faker.internet.domainName()],
  [
    any('birthday', 'birthdate', 'birth_date', 'dob', 'date_of_birth'),
    (ctx) => dateString(dateFor(`${ctx.parent}_${ctx.key}`)),
  ],
  [
    last(
      'at',
      'timestamp',
      'datetime',
      'time',
      'date_time',
      'created',
      'updated',
      'modified',
      'deleted',
      'published',
      'expires',
      'expiry',
      'expiration',
      'last_seen',
      'last_login',
      'last_modified',
    ),
    (ctx) => dateTimeString(dateFor(`${ctx.parent}_${ctx.key}`)),
  ],
  [
    any('date', 'day', 'on', 'since', 'until', 'deadline', 'due'),
    (ctx) => dateString(dateFor(`${ctx.parent}_${ctx.key}`)),
  ],
  [
    any('phone', 'phone_number', 'mobile', 'fax', 'tel', 'telephone', 'cell', 'msisdn', 'whatsapp'),
    () => faker.phone.number({ style: 'international' }),
  ],
  [any('first_name', 'firstname', 'given_name', 'forename'), (ctx) => ctx.persona().first],
  [any('last_name', 'lastname', 'surname', 'family_name'), (ctx) => ctx.persona().last],
  [any('middle_name'), () => faker.person.middleName()],
  [
    any('username', 'user_name', 'login', 'handle', 'screen_name', 'nickname', 'nick', 'account_name', 'userid_name'),
    username,
  ],
  [
    any(
      'full_name',
      'fullname',
      'contact_name',
      'author',
      'owner_name',
      'customer_name',
      'real_name',
      'person_name',
      'author_name',
      'recipient_name',
      'sender_name',
    ),
    fullName,
  ],
  [any('job_title', 'occupation', 'profession', 'job'), () => faker.person.jobTitle()],
  [any('department', 'dept'), () => faker.commerce.department()],
  [
    any(
      'company',
      'company_name',
      'organization',
      'organisation',
      'employer',
      'business_name',
      'brand',
      'publisher',
      'manufacturer',
      'vendor',
      'merchant',
      'agency',
      'org_name',
      'organization_name',
    ),
    () => faker.company.name(),
  ],
  [
    any('zip', 'zipcode', 'zip_code', 'postal_code', 'postcode', 'postalcode', 'postal'),
    () => faker.location.zipCode(),
  ],
  [
    any(
      'country_code',
      'countrycode',
      'country_iso',
      'iso_country',
      'nationality',
      'country_iso_code',
      'country_iso2',
      'country_alpha2',
      'iso2',
      'alpha2',
    ),
    () => faker.location.countryCode(),
  ],
  [any('country', 'country_name'), () => faker.location.country()],
  [any('county'), () => faker.location.county()],
  [any('city', 'town', 'locality', 'municipality', 'city_name'), () => faker.location.city()],
  [any('province', 'region', 'state_name'), () => faker.location.state()],
  [
    any(
      'street',
      'address',
      'address_line',
      'address1',
      'address2',
      'address_line1',
      'address_line2',
      'line1',
      'line2',
      'street_address',
    ),
    () => faker.location.streetAddress(),
  ],
  [any('location', 'place', 'venue', 'destination'), () => `${faker.location.city()}, ${faker.location.countryCode()}`],
  [any('lat', 'latitude'), () => faker.location.latitude().toFixed(6)],
  [LONGITUDE, () => faker.location.longitude().toFixed(6)],
  [MEASURE, (ctx) => measureString(ctx.key)],
  [any('currency_symbol'), () => rng.pick(['$', '€', '£', '¥'])],
  [any('currency', 'currency_code', 'iso_currency'), () => faker.finance.currencyCode()],
  [any('iban'), () => faker.finance.iban()],
  [any('bic', 'swift', 'swift_code'), () => faker.finance.bic()],
  [any('account_number', 'acct_number', 'account_no'), () => faker.finance.accountNumber()],
  [any('routing_number'), () => faker.finance.routingNumber()],
  [any('isbn'), () => faker.commerce.isbn()],
  [
    any(
      'price',
      'amount',
      'cost',
      'total',
      'subtotal',
      'balance',
      'fee',
      'fees',
      'tax',
      'salary',
      'revenue',
      'budget',
      'discount',
      'payment',
      'charge',
      'income',
      'spend',
      'profit',
      'value_usd',
    ),
    money,
  ],
  [any('count', 'quantity', 'qty', 'num', 'number_of', 'credits', 'credits_remaining'), () => String(rng.int(0, 500))],
  [any('color', 'colour', 'hex_color', 'background_color', 'foreground_color'), () => faker.color.rgb()],
  [any('language', 'lang', 'language_code', 'lang_code'), () => faker.location.language().alpha2],
  [any('locale'), () => rng.pick(['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'ja-JP', 'pt-BR'])],
  [any('version', 'semver', 'api_version', 'app_version', 'release'), () => faker.system.semver()],
  [any('password', 'passwd', 'pass', 'pwd'), () => faker.internet.password()],
  [any('hash', 'checksum', 'sha', 'sha1', 'digest', 'etag', 'fingerprint'), () => hex(40)],
  [any('sha256', 'signature'), () => hex(64)],
  [any('md5'), () => hex(32)],
  [
    any(
      'token',
      'secret',
      'api_key',
      'apikey',
      'access_key',
      'access_token',
      'refresh_token',
      'nonce',
      'salt',
      'session',
      'cursor',
      'page_token',
    ),
    () => faker.string.alphanumeric(32),
  ],
  [any('mime', 'mime_type', 'mimetype', 'content_type', 'media_type'), () => faker.system.mimeType()],
  [any('file_name', 'filename', 'file'), fileName],
  [
    any('path', 'file_path', 'filepath', 'dir', 'directory', 'folder'),
    () =>
      `/${phrase()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '/')}/${fileName()}`,
  ],
  [any('extension', 'ext', 'file_extension'), () => rng.pick(EXTENSIONS)],
  [any('sku'), () => `${upperCode(3)}-${rng.int(1000, 99_999)}`],
  [any('symbol', 'ticker', 'ticker_symbol'), () => faker.string.alpha({ length: { min: 3, max: 4 }, casing: 'upper' })],
  [any('slug'), kebab],
  [last('id', 'ids', 'identifier', 'key', 'uid', 'ref', 'reference', 'number', 'no'), stringId],
  [any('code', 'promo_code', 'coupon_code', 'coupon'), () => upperCode(rng.int(4, 8))],
  [
    any('state'),
    (ctx) => (GEO_PARENT.test(ctx.parent) ? faker.location.state({ abbreviated: true }) : rng.pick(STATUSES)),
  ],
  [any('status'), () => rng.pick(STATUSES)],
  [any('role', 'roles'), () => rng.pick(['admin', 'member', 'owner', 'viewer', 'editor'])],
  [any('gender', 'sex'), () => faker.person.sex()],
  [any('priority', 'severity', 'level'), () => rng.pick(['low', 'medium', 'high', 'critical'])],
  [any('method', 'http_method'), () => rng.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH'])],
  [any('unit', 'units'), () => rng.pick(['metric', 'imperial', 'kg', 'km', 'celsius'])],
  [any('format'), () => rng.pick(['json', 'csv', 'xml', 'pdf', 'html'])],
  [any('type', 'kind', 'category', 'categories', 'genre', 'class', 'group'), () => faker.word.noun()],
  [any('tag', 'tags', 'label', 'labels', 'keyword', 'keywords', 'topic', 'topics', 'hashtag'), () => faker.word.noun()],
  [any('query', 'q', 'search', 'term', 'search_term'), phrase],
  [any('bio', 'about'), () => faker.person.bio()],
  [
    any('title', 'headline', 'subject', 'caption', 'heading'),
    (ctx) => (PRODUCT.test(ctx.parent) ? faker.commerce.productName() : title()),
  ],
  [any('name', 'display_name'), nameFor],
  [
    any(
      'description',
      'desc',
      'summary',
      'abstract',
      'excerpt',
      'snippet',
      'overview',
      'details',
      'detail',
      'message',
      'msg',
      'comment',
      'comments',
      'note',
      'notes',
      'body',
      'content',
      'text',
      'reason',
      'instructions',
      'feedback',
      'review',
      'answer',
      'question',
      'reply',
      'error',
      'error_message',
      'warning',
      'explanation',
      'purpose',
      'remarks',
    ),
    (ctx) => (PRODUCT.test(ctx.parent) ? faker.commerce.productDescription() : sentence()),
  ],
  [any('word', 'words', 'value', 'values'), () => faker.word.sample()],
];

/** A realistic string for a field, or undefined when its name says nothing the rules know. */
export function namedString(ctx: FieldContext): string | undefined {
  for (const make of stringRulesFor(ctx.key)) {
    const value = make(ctx);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The rules a name matches, in order: worked out once per name, as the same names recur on every call. */
const matchedRules = new Map<string, StringRule[1][]>();

function stringRulesFor(key: string): StringRule[1][] {
  let rules = matchedRules.get(key);
  if (rules === undefined) {
    rules = STRING_RULES.filter(([test]) => test.test(key)).map(([, make]) => make);
    if (matchedRules.size < 50_000) matchedRules.set(key, rules);
  }
  return rules;
}

/**
 * Other spellings of a named value, for a field whose schema takes only a short form: codes for countries, states and
 * languages.
 */
export function namedVariants(ctx: FieldContext): string[] {
  if (/(?:^|_)country(?:_|$)/.test(ctx.key))
    return [faker.location.countryCode('alpha-2'), faker.location.countryCode('alpha-3')];
  if (/(?:^|_)(?:state|province|region)(?:_|$)/.test(ctx.key)) return [faker.location.state({ abbreviated: true })];
  if (/(?:^|_)(?:language|lang)(?:_|$)/.test(ctx.key)) return [faker.location.language().alpha3];
  if (/(?:^|_)currency(?:_|$)/.test(ctx.key)) return [faker.finance.currencyCode()];
  return [];
}

/** A couple of plain words: what a string field with an unknown name gets. */
export function plainString(): string {
  return phrase();
}

/** What a string in a non-standard format (`phone`, `currency`, `int64` for a string-encoded number…) looks like. */
export function formatHintString(format: string, ctx: FieldContext): string | undefined {
  const key = format.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  if (/^(?:u?int\d*|integer|long)$/.test(key)) return String(rng.int(1, 999_999));
  if (/^(?:float|double|decimal|number|money|currency_amount)$/.test(key)) return money();
  return namedString({ ...ctx, key });
}

const hint = (min: number, max: number, decimals = 0): NumberHint => ({ min, max, decimals });
/** A range no value can leave (a latitude, a percentage, an hour of the day). */
const firm = (min: number, max: number, decimals = 0): NumberHint => ({ min, max, decimals, firm: true });
const SECONDS_NOW = Math.floor(Date.parse('2025-06-01T12:00:00Z') / 1000);

type NumberRule = [RegExp, NumberHint];

/** Field name → typical range; the first match wins. */
const NUMBER_RULES: NumberRule[] = [
  [any('lat', 'latitude'), firm(-90, 90, 6)],
  [LONGITUDE, firm(-180, 180, 6)],
  [
    any('ms', 'millis', 'milliseconds', 'timestamp_ms', 'time_ms'),
    hint((SECONDS_NOW - 3 * 365 * 86_400) * 1000, SECONDS_NOW * 1000),
  ],
  [
    any(
      'duration',
      'elapsed',
      'timeout',
      'ttl',
      'latency',
      'seconds',
      'secs',
      'uptime',
      'interval',
      'delay',
      'runtime',
    ),
    hint(1, 3600),
  ],
  [
    last(
      'at',
      'timestamp',
      'epoch',
      'time',
      'created',
      'updated',
      'modified',
      'date',
      'expires',
      'expiry',
      'last_seen',
      'last_login',
    ),
    hint(SECONDS_NOW - 3 * 365 * 86_400, SECONDS_NOW),
  ],
  [any('exp_year', 'expiry_year', 'expiration_year', 'expires_year'), hint(2026, 2032)],
  [any('year', 'yr', 'years'), hint(1990, 2025)],
  [any('month', 'months'), firm(1, 12)],
  [any('day', 'days', 'weekday'), hint(1, 28)],
  [any('hour', 'hours'), firm(0, 23)],
  [any('minute', 'minutes', 'mins'), firm(0, 59)],
  [any('second'), firm(0, 59)],
  [any('age'), hint(18, 85)],
  [any('total_pages', 'page_count', 'pages'), hint(1, 20)],
  [any('page', 'page_number', 'current_page', 'page_index'), hint(1, 10)],
  [any('per_page', 'page_size', 'pagesize', 'limit', 'max_results', 'results_per_page'), hint(10, 50)],
  [any('offset', 'skip', 'start', 'cursor'), hint(0, 100)],
  [any('rating', 'ratings', 'score', 'stars', 'review_score', 'vote_average'), hint(1, 5, 1)],
  [
    any(
      'percent',
      'percentage',
      'pct',
      'humidity',
      'rh',
      'cloud',
      'clouds',
      'cloud_cover',
      'cloudiness',
      'progress',
      'battery',
      'battery_level',
    ),
    firm(0, 100, 1),
  ],
  [any('ratio', 'probability', 'confidence', 'share', 'fraction', 'similarity', 'weight_ratio'), firm(0, 1, 3)],
  [any('pressure'), hint(980, 1040)],
  [any('wind', 'wind_speed', 'gust', 'speed'), hint(0, 30, 1)],
  [any('visibility'), hint(1, 10, 1)],
  [any('uv', 'uv_index'), hint(0, 11)],
  [any('precipitation', 'rain', 'snow', 'precip', 'rainfall'), hint(0, 20, 1)],
  [any('width', 'height', 'w', 'h', 'resolution'), hint(100, 1920)],
  [any('bytes', 'file_size', 'filesize', 'size_bytes', 'content_length'), hint(1024, 10_000_000)],
  [any('port'), hint(1024, 65_535)],
  [any('status_code', 'http_status', 'http_code', 'response_code'), hint(200, 200)],
  [any('error_code'), hint(1000, 9999)],
  [any('version', 'revision', 'rev'), hint(1, 20)],
  [
    any('priority', 'level', 'rank', 'order', 'position', 'index', 'sort', 'step', 'stage', 'tier', 'sequence', 'seq'),
    hint(1, 10),
  ],
  [any('quantity', 'qty', 'stock', 'inventory', 'units'), hint(0, 200)],
  [
    any(
      'views',
      'likes',
      'followers',
      'following',
      'downloads',
      'votes',
      'shares',
      'favorites',
      'clicks',
      'impressions',
      'visits',
      'plays',
      'subscribers',
      'retweets',
      'reactions',
    ),
    hint(0, 10_000),
  ],
  [any('population'), hint(1000, 10_000_000)],
  [any('distance', 'miles', 'km', 'kilometers', 'meters'), hint(0.1, 500, 1)],
  [any('weight', 'kg', 'lbs', 'grams'), hint(0.1, 100, 1)],
  [any('rate', 'interest', 'apr', 'exchange_rate', 'multiplier'), hint(0.01, 10, 4)],
  [
    any(
      'price',
      'amount',
      'cost',
      'subtotal',
      'balance',
      'fee',
      'fees',
      'tax',
      'salary',
      'revenue',
      'budget',
      'discount',
      'payment',
      'charge',
      'income',
      'spend',
      'profit',
      'value',
      'usd',
      'eur',
    ),
    hint(1, 1000, 2),
  ],
  [last('id', 'ids', 'uid', 'key', 'number', 'no'), hint(1, 99_999)],
  [any('count', 'total', 'num', 'number', 'size', 'length', 'amount_of', 'hits', 'results', 'items'), hint(0, 500)],
];

const TEMPERATURE_WORDS = new Set([
  'temperature',
  'temp',
  'tempf',
  'tempc',
  'tempk',
  'feelslike',
  'dewpoint',
  'windchill',
  'heatindex',
  'celsius',
  'fahrenheit',
  'kelvin',
]);
const TEMPERATURE_PHRASES = /(?:^|_)(?:feels_like|dew_point|wind_chill|heat_index|apparent_temperature)(?:_|$)/;
const SCALES: Record<'C' | 'F' | 'K', NumberHint> = { C: hint(-10, 35, 1), F: hint(14, 95, 1), K: hint(263, 308, 1) };
/**
 * What `temp` means in names that are not temperatures (`temp_password`, `temp_dir`): the word must end the name or
 * stand before a unit or a statistic.
 */
const TEMP_FOLLOWERS = new Set([
  'f',
  'c',
  'k',
  'max',
  'min',
  'avg',
  'mean',
  'high',
  'low',
  'value',
  'celsius',
  'fahrenheit',
  'kelvin',
]);

/**
 * A temperature's typical range in the scale its name states (`TempF`, `temp_c`, `temperature_kelvin`; Celsius
 * unstated).
 */
export function temperatureHint(key: string): NumberHint | undefined {
  const words = key.split('_');
  const tempAt = words.lastIndexOf('temp');
  const named =
    TEMPERATURE_PHRASES.test(key) ||
    words.some((w) => w !== 'temp' && TEMPERATURE_WORDS.has(w)) ||
    (tempAt >= 0 && (tempAt === words.length - 1 || TEMP_FOLLOWERS.has(words[tempAt + 1]!)));
  if (!named) return undefined;
  if (words.some((w) => w === 'f' || w === 'fahrenheit' || w === 'tempf' || w === 'imperial')) return SCALES.F;
  if (words.some((w) => w === 'k' || w === 'kelvin' || w === 'tempk')) return SCALES.K;
  return SCALES.C;
}

/** A typical range for a numeric field, or undefined when its name says nothing the rules know. */
export function namedNumber(key: string): NumberHint | undefined {
  let found = numberHints.get(key);
  if (found === undefined) {
    found = temperatureHint(key) ?? NUMBER_RULES.find(([test]) => test.test(key))?.[1] ?? null;
    if (numberHints.size < 50_000) numberHints.set(key, found);
  }
  return found ?? undefined;
}

/** Hints by name, null for none: worked out once per name. */
const numberHints = new Map<string, NumberHint | null>();

function measureString(key: string): string | undefined {
  const found = namedNumber(key);
  if (!found) return undefined;
  return (found.min + rng.next() * (found.max - found.min)).toFixed(found.decimals);
}

const MOSTLY_TRUE = any(
  'success',
  'successful',
  'ok',
  'succeeded',
  'available',
  'enabled',
  'active',
  'valid',
  'verified',
  'visible',
  'public',
  'ready',
  'online',
  'open',
  'confirmed',
  'approved',
  'completed',
  'exists',
  'found',
  'healthy',
  'in_stock',
);
const MOSTLY_FALSE = any(
  'error',
  'errors',
  'failed',
  'failure',
  'deprecated',
  'private',
  'hidden',
  'test',
  'draft',
  'spam',
  'fraud',
  'cancelled',
  'canceled',
  'bot',
  'truncated',
  'has_more',
  'more',
  'sandbox',
);
/** How likely a boolean field is to be true, going by its name (`success` mostly is, `deleted` mostly is not). */
export function trueChance(key: string): number {
  if (MOSTLY_TRUE.test(key)) return 0.85;
  if (outOfUse(key)) return 0.04;
  if (MOSTLY_FALSE.test(key)) return 0.15;
  return 0.5;
}
