import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseField } from '../../src/fidelity/fields.js';
import * as checks from '../../src/fidelity/plausibility.js';
import { nameKey } from '../../src/simulator/synth/names.js';

/** A field `name: value` of an object that also holds `siblings`. */
function field(
  name: string,
  value: unknown,
  {
    siblings = {},
    format,
    description,
    record = true,
  }: { siblings?: Record<string, unknown>; format?: string; description?: string; record?: boolean } = {},
): ResponseField {
  const parent = { ...siblings, [name]: value };
  return {
    path: `/${name}`,
    name,
    key: nameKey(name),
    value,
    parent,
    record,
    ...(format ? { format } : {}),
    ...(description ? { description } : {}),
  };
}

const run = (check: checks.PlausibilityCheck, f: ResponseField, read = false) => check.test({ field: f, read });

test('temperature: in range for its scale; a word or an absurd number fails; other fields are not checked', () => {
  assert.equal(run(checks.temperature, field('TempF', 71)), true);
  assert.equal(run(checks.temperature, field('TempF', 'edge')), false);
  assert.equal(run(checks.temperature, field('temp_c', 75)), false);
  assert.equal(run(checks.temperature, field('temperature', 300, { description: 'Temperature in Kelvin' })), true);
  assert.equal(run(checks.temperature, field('temperature', 300)), false);
  assert.equal(run(checks.temperature, field('template', 'x')), undefined);
  assert.equal(run(checks.temperature, field('max_temp', 'hot')), false);
  assert.equal(run(checks.temperature, field('temp_clone_token', 'ABTLWHOU')), undefined);
});

test('humidity and percentage: within [0, 100]; a change may be negative', () => {
  assert.equal(run(checks.humidity, field('relative_humidity', 64)), true);
  assert.equal(run(checks.humidity, field('humidity', 319)), false);
  assert.equal(run(checks.humidity, field('humid_days', 319)), undefined);
  assert.equal(run(checks.percentage, field('discount_percent', '15%')), true);
  assert.equal(run(checks.percentage, field('percentage', 140)), false);
  assert.equal(run(checks.percentage, field('price_change_percent', -3.2)), true);
  assert.equal(run(checks.percentage, field('percentile', 40)), undefined);
});

test('latitude and longitude: within ±90 and ±180', () => {
  assert.equal(run(checks.latitude, field('lat', 48.85)), true);
  assert.equal(run(checks.latitude, field('latitude', 12345)), false);
  assert.equal(run(checks.longitude, field('lng', '-122.4')), true);
  assert.equal(run(checks.longitude, field('longitude', 200)), false);
  assert.equal(run(checks.longitude, field('long_description', 'x')), undefined);
});

test('card_last4: four digits', () => {
  assert.equal(run(checks.last4, field('last4', '4242')), true);
  assert.equal(run(checks.last4, field('last4', 'enchanted formation')), false);
  assert.equal(run(checks.last4, field('brand', 'visa')), undefined);
});

test('currency and country codes: real ISO codes, in either case', () => {
  assert.equal(run(checks.currency, field('currency', 'usd')), true);
  assert.equal(run(checks.currency, field('currency', 'XYZ')), false);
  assert.equal(run(checks.currency, field('currency_code', 'dollars')), false);
  assert.equal(run(checks.currency, field('currency', 'US Dollar')), undefined);
  assert.equal(run(checks.country, field('country_code', 'DE')), true);
  assert.equal(run(checks.country, field('country', 'QQ')), false);
  assert.equal(run(checks.country, field('country_code', 'Germany')), false);
  assert.equal(run(checks.country, field('country', 'Germany')), undefined);
  assert.equal(run(checks.country, field('country_code', '+44')), undefined);
  assert.equal(run(checks.currency, field('currency', 'CLF')), true);
  assert.equal(run(checks.currency, field('currency', 'XXX')), false);
});

test('price_non_negative: prices and amounts are ≥ 0 numbers; refunds and balances are not checked', () => {
  assert.equal(run(checks.money, field('unit_price', 3.99)), true);
  assert.equal(run(checks.money, field('amount', '$12.00')), true);
  assert.equal(run(checks.money, field('price', -10)), false);
  assert.equal(run(checks.money, field('cost', 'cheap')), false);
  assert.equal(run(checks.money, field('refund_amount', -5)), undefined);
});

test('count_matches_array: `X_count` is the length of `X`, `count` of the one list, `total` at least it', () => {
  const items = [1, 2, 3];
  assert.equal(run(checks.countMatchesArray, field('items_count', 3, { siblings: { items } })), true);
  assert.equal(run(checks.countMatchesArray, field('items_count', 5, { siblings: { items } })), false);
  assert.equal(run(checks.countMatchesArray, field('count', 3, { siblings: { results: items } })), true);
  assert.equal(run(checks.countMatchesArray, field('total_count', 120, { siblings: { items } })), true);
  assert.equal(run(checks.countMatchesArray, field('total', 0, { siblings: { items } })), false);
  assert.equal(run(checks.countMatchesArray, field('count', 3)), undefined);
  assert.equal(run(checks.countMatchesArray, field('count', 3, { siblings: { a: [], b: [] } })), undefined);
  const stock = { ...field('count', 40, { siblings: { tags: ['a'] } }), path: '/data/0/products/0/count' };
  assert.equal(run(checks.countMatchesArray, stock), undefined);
});

test('timestamps_ordered: created ≤ updated, start ≤ end, in any date form', () => {
  assert.equal(
    run(
      checks.timestampOrder,
      field('created_at', '2024-01-01T00:00:00Z', { siblings: { updated_at: '2024-02-01T00:00:00Z' } }),
    ),
    true,
  );
  assert.equal(
    run(
      checks.timestampOrder,
      field('createdAt', '2025-01-01T00:00:00Z', { siblings: { updatedAt: '2024-02-01T00:00:00Z' } }),
    ),
    false,
  );
  assert.equal(
    run(checks.timestampOrder, field('start_date', 1700000000, { siblings: { end_date: 1600000000 } })),
    false,
  );
  assert.equal(run(checks.timestampOrder, field('created_at', '2024-01-01')), undefined);
});

test(
  'status_flags_normal: a resource read by id is not deleted, disabled or archived; lists and writes are not ' +
    'checked',
  () => {
    assert.equal(run(checks.flagsNormal, field('deleted', false), true), true);
    assert.equal(run(checks.flagsNormal, field('is_archived', true), true), false);
    assert.equal(run(checks.flagsNormal, field('deleted', true), false), undefined);
    assert.equal(run(checks.flagsNormal, field('deleted', true, { record: false }), true), undefined);
  },
);

test('email and URL: well formed; templated and relative links are URLs', () => {
  assert.equal(run(checks.email, field('email', 'ada@example.com')), true);
  assert.equal(run(checks.email, field('billing_email', 'ada at example')), false);
  assert.equal(run(checks.email, field('note', 'x', { format: 'email' })), false);
  assert.equal(run(checks.url, field('html_url', 'https://github.com/torvalds')), true);
  assert.equal(run(checks.url, field('followers_url', 'https://api.github.com/users/x/following{/other_user}')), true);
  assert.equal(run(checks.url, field('href', '/v1/pets/7')), true);
  assert.equal(run(checks.url, field('website', 'enchanted formation')), false);
  assert.equal(run(checks.url, field('ssh_url', 'git@github.com:octocat/Hello-World.git')), true);
  assert.equal(run(checks.url, field('uri', 'rest/gadgets/1.0/g/plugin:gadget.xml')), true);
  assert.equal(run(checks.url, field('url', 'http:/broken path')), false);
  assert.equal(run(checks.url, field('name', 'x')), undefined);
});

test('date_sane: creation dates between 1970 and next year; a date-time field must hold a date', () => {
  assert.equal(run(checks.dateInRange, field('created_at', '2023-05-01T10:00:00Z')), true);
  assert.equal(run(checks.dateInRange, field('created_at', '2999-05-01T10:00:00Z')), false);
  assert.equal(run(checks.dateInRange, field('when', 'soon', { format: 'date-time' })), false);
  assert.equal(run(checks.dateInRange, field('expires_at', '2999-05-01T10:00:00Z', { format: 'date-time' })), false);
  assert.equal(run(checks.dateInRange, field('created_at', null)), undefined);
  assert.equal(run(checks.dateInRange, field('created_at', '1965-01-01')), false);
  assert.equal(run(checks.dateInRange, field('birthday', '1956-06-22', { format: 'date' })), true);
});

test('numeric and instant read the forms APIs write', () => {
  assert.equal(checks.numeric('21.5°C'), 21.5);
  assert.equal(checks.numeric('45%'), 45);
  assert.equal(checks.numeric('edge'), undefined);
  assert.equal(checks.instant(1700000000), 1700000000000);
  assert.equal(checks.instant('1700000000000'), 1700000000000);
  assert.equal(checks.instant('not a date'), undefined);
});

test('every check has a unique name', () => {
  const names = checks.CHECKS.map((c) => c.name);
  assert.equal(new Set(names).size, names.length);
});
