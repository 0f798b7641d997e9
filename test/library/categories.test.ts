import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATEGORIES, FALLBACK_CATEGORY, inferCategory, normalizeCategory } from '../../src/library/categories.js';

test('normalizeCategory takes the first category, as snake_case, from arrays and strings', () => {
  assert.equal(normalizeCategory(['developer_tools', 'cloud']), 'developer_tools');
  assert.equal(normalizeCategory('security'), 'security');
  // The bundled directory has one document whose string was split into letters.
  assert.equal(normalizeCategory(['s', 'e', 'c', 'u', 'r', 'i', 't', 'y']), 'security');
  assert.equal(normalizeCategory('Developer Tools'), 'developer_tools');
  assert.equal(normalizeCategory('Business & Finance'), 'business_and_finance');
  assert.equal(normalizeCategory(['', 'media']), 'media');
  assert.equal(normalizeCategory([]), undefined);
  assert.equal(normalizeCategory(42), undefined);
  assert.equal(normalizeCategory('  '), undefined);
});

test('inferCategory files text under the APIs.guru vocabulary by keyword', () => {
  assert.equal(inferCategory('Weather forecast for any city by latitude and longitude'), 'location');
  assert.equal(inferCategory('Send SMS messages and WhatsApp notifications'), 'messaging');
  assert.equal(inferCategory('Stripe payments: create a refund for a charge'), 'payment');
  assert.equal(inferCategory('NBA scores, players and league standings'), 'entertainment');
  assert.equal(inferCategory('getFlightStatus'), 'transport');
  assert.equal(inferCategory('Translate text between languages'), 'text');
  assert.equal(inferCategory('Manage Kubernetes clusters and virtual machines'), 'cloud');
  assert.equal(inferCategory('Scan a file for malware and phishing threats'), 'security');
  assert.equal(inferCategory('xyzzy plugh'), FALLBACK_CATEGORY);
  assert.equal(inferCategory(''), FALLBACK_CATEGORY);
});

test('keywords match whole words unless marked as stems', () => {
  // "format" is not "form", "payload" is not "pay", "carpet" is not "car".
  assert.equal(inferCategory('format the payload of a carpet'), FALLBACK_CATEGORY);
  assert.equal(inferCategory('fill in a form'), 'forms');
  assert.equal(inferCategory('financial reports'), 'financial');
});

test('the vocabulary is the APIs.guru categories plus the two its documents add', () => {
  assert.equal(CATEGORIES.length, 35);
  for (const category of ['analytics', 'cloud', 'developer_tools', 'open_data', 'entertainment', 'transport', 'tools']) assert.ok(CATEGORIES.includes(category), category);
  assert.ok(CATEGORIES.every((c) => /^[a-z_]+$/.test(c)));
});
