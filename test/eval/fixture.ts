/** A library of the petstore (OpenAPI) and ToolBench-imported tools, and ToolBench-format queries over it. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readImport, writeImport } from '../../src/library/importers/index.js';
import { writeSources, airQualityTool, stockTool, weatherapiTool } from '../fixtures/import-sources.js';
import type { Tool } from '../../src/library/tool.js';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

const currencyTool = {
  tool_name: 'Currency Exchange',
  tool_description: 'Live currency exchange rates and conversion between currencies.',
  host: 'currency-exchange.p.rapidapi.com',
  api_list: [
    {
      name: 'convert',
      url: 'https://currency-exchange.p.rapidapi.com/convert',
      description: 'Convert an amount of money from one currency to another at the current exchange rate.',
      method: 'GET',
      required_parameters: [
        { name: 'from', type: 'STRING', description: 'Source currency code', default: 'USD' },
        { name: 'to', type: 'STRING', description: 'Target currency code', default: 'EUR' },
      ],
      optional_parameters: [{ name: 'amount', type: 'NUMBER', description: 'Amount to convert', default: '1' }],
      template_response: { from: 'str', to: 'str', rate: 'float', result: 'float' },
    },
    {
      name: 'listquotes',
      url: 'https://currency-exchange.p.rapidapi.com/listquotes',
      description: 'List the currency codes available for exchange.',
      method: 'GET',
      required_parameters: [],
      optional_parameters: [],
    },
  ],
};

const newsTool = {
  tool_name: 'News Headlines',
  tool_description: 'Breaking news headlines from thousands of sources.',
  api_list: [
    {
      name: 'Top Headlines',
      url: 'https://news-headlines.p.rapidapi.com/top',
      description: 'Top news headlines for a topic such as technology, sports or business.',
      method: 'GET',
      required_parameters: [{ name: 'topic', type: 'STRING', description: 'News topic', default: 'technology' }],
      optional_parameters: [{ name: 'country', type: 'STRING', description: 'Two-letter country code', default: 'us' }],
      template_response: { articles: [{ title: 'str', source: 'str', url: 'str' }] },
    },
  ],
};

/** The ToolBench tools root the fixture library imports: Weather/, Finance/ and News_Media/. */
export function writeEvalToolbenchRoot(): string {
  return writeSources({
    'Weather/weatherapi_com.json': weatherapiTool,
    'Weather/air_quality_io.json': airQualityTool,
    'Finance/stock_quotes.json': stockTool,
    'Finance/currency_exchange.json': currencyTool,
    'News_Media/news_headlines.json': newsTool,
  });
}

/** An OpenAPI operation without an operationId: the build names it by method and path. */
const inventoryTool: Tool = {
  id: 'petstore_test__get_store_inventory',
  name: 'Returns pet inventories by status',
  description: 'Returns a map of status codes to quantities.',
  category: 'ecommerce',
  parameters: { type: 'object', properties: {} },
  response_schema: { type: 'object', additionalProperties: { type: 'integer' } },
  examples: [],
  origin: {
    format: 'openapi',
    api_id: 'petstore.test',
    method: 'get',
    path: '/store/inventory',
    operation_id: null,
    server: 'https://petstore.test/v1',
  },
};

/** Petstore (OpenAPI) plus the ToolBench tools above, imported through the real importer into a fresh library. */
export async function writeEvalLibrary(): Promise<string> {
  const dir = writeFixtureLibrary([...petstoreTools, inventoryTool], [petstoreApi]);
  const { batch } = await readImport(writeEvalToolbenchRoot(), 'toolbench');
  writeImport(dir, batch);
  return dir;
}

const api = (category_name: string, tool_name: string, api_name: string) => ({
  category_name,
  tool_name,
  api_name,
  api_description: '',
  required_parameters: [],
  optional_parameters: [],
  method: 'GET',
});

/**
 * ToolBench queries (G1/G2 style) over the fixture library: single- and multi-tool, one unmappable, one partly mapped.
 */
export const toolbenchQueries = [
  {
    query: 'What is the current weather in London right now?',
    query_id: 101,
    api_list: [
      api('Weather', 'WeatherAPI.com', 'Realtime Weather API'),
      api('Weather', 'WeatherAPI.com', 'Forecast Weather API'),
    ],
    'relevant APIs': [['WeatherAPI.com', 'Realtime Weather API']],
  },
  {
    query: 'I am travelling to Paris: give me the current weather there and the weather forecast for the next 3 days.',
    query_id: 102,
    api_list: [
      api('Weather', 'WeatherAPI.com', 'Realtime Weather API'),
      api('Weather', 'WeatherAPI.com', 'Forecast Weather API'),
    ],
    'relevant APIs': [
      ['WeatherAPI.com', 'Realtime Weather API'],
      ['WeatherAPI.com', 'Forecast Weather API'],
    ],
  },
  {
    query:
      'Get the latest stock price quote for the ticker symbol AAPL, ' +
      'and convert 100 USD to EUR at the current exchange rate.',
    query_id: 103,
    api_list: [api('Finance', 'Stock Quotes', 'quote'), api('Finance', 'currency exchange', 'Convert')],
    // Spelled differently from the tool file: mapped by normalized names.
    'relevant APIs': [
      ['Stock Quotes', 'quote'],
      ['currency exchange', 'Convert'],
    ],
  },
  {
    query: 'Show me the top news headlines about technology and list the currency codes available for exchange.',
    query_id: 104,
    api_list: [api('News_Media', 'News Headlines', 'Top Headlines'), api('Finance', 'Currency Exchange', 'listquotes')],
    'relevant APIs': [
      ['News Headlines', 'Top Headlines'],
      ['Currency Exchange', 'listquotes'],
    ],
  },
  {
    query: 'Find a pet by its id 7 in the pet store, and check the current air quality at point 35.779,-78.638.',
    query_id: 105,
    api_list: [
      api('ecommerce', 'petstore.test', 'getPetById'),
      api('Weather', 'Air Quality.io — Ñandú Edition', 'Current Air Quality (by lat/lon)'),
    ],
    'relevant APIs': [
      ['petstore.test', 'getPetById'],
      ['Air Quality.io — Ñandú Edition', 'Current Air Quality (by lat/lon)'],
      ['Lost Tool', 'gone'],
    ],
  },
  {
    query: 'Book me a flight to Rome.',
    query_id: 106,
    api_list: [api('Travel', 'Skyscanner Flights', 'Search Flights')],
    'relevant APIs': [['Skyscanner Flights', 'Search Flights']],
  },
];

/** The queries as a ToolBench JSON array file (the way G1_instruction.json is written). */
export function writeToolbenchQueries(queries: unknown[] = toolbenchQueries): string {
  const file = join(tempDir('toolenv-tasks-'), 'queries.json');
  writeFileSync(file, JSON.stringify(queries, null, 2));
  return file;
}

/** A file with this text, in a fresh temp dir. */
export function writeText(name: string, text: string): string {
  const file = join(tempDir('toolenv-tasks-'), name);
  writeFileSync(file, text);
  return file;
}
