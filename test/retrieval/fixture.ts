import type { Tool } from '../../src/library/tool.js';
import { petstoreApi, petstoreTools, writeFixtureLibrary } from '../fixtures/tools.js';

const openai = (id: string, name: string, description: string, category: string, params: string[]): Tool => ({
  id,
  name,
  description,
  category,
  parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
  examples: [],
  origin: { format: 'openai', name: id },
});

/** Tools beside the petstore with overlapping words, so that ranking has something to get wrong. */
export const extraTools: Tool[] = [
  openai('sendEmail', 'sendEmail', 'Send an email message to a recipient with a subject and body.', 'email', [
    'to',
    'subject',
    'body',
  ]),
  openai('listEmails', 'listEmails', 'List the messages in a mailbox folder.', 'email', ['folder', 'limit']),
  openai(
    'convert_currency',
    'convert_currency',
    'Convert an amount of money from one currency to another at the current exchange rate.',
    'financial',
    ['from', 'to', 'amount'],
  ),
  openai('stock-quote', 'stock-quote', 'Get the latest stock price quote for a ticker symbol.', 'financial', [
    'symbol',
  ]),
  openai('translateText', 'translateText', 'Translate text between languages.', 'text', ['text', 'targetLanguage']),
  openai(
    'geocodeAddress',
    'geocodeAddress',
    'Turn a street address into latitude and longitude coordinates.',
    'location',
    ['address'],
  ),
  openai('air_quality', 'air_quality', 'Current air pollution index for a city.', 'weather', ['city']),
];

export const retrievalTools: Tool[] = [...petstoreTools, ...extraTools];

/** A library of the petstore fixture and the tools above, in a fresh temporary directory. */
export function writeRetrievalLibrary(tools: Tool[] = retrievalTools): string {
  return writeFixtureLibrary(tools, [petstoreApi]);
}
