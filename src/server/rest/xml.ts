/**
 * A JSON body as XML, shaped by the schema's OpenAPI `xml` hints: `name` renames an element, `attribute` writes a
 * property as an attribute, `wrapped` puts an array's items inside an element of the array's name, `prefix` and
 * `namespace` qualify a name. Without a schema, members are elements and array items repeat their member's name.
 */
import { deref, isObject, refOf, type JsonObject } from '../../library/openapi/refs.js';

interface XmlHints {
  name?: string;
  attribute?: boolean;
  wrapped?: boolean;
  prefix?: string;
  namespace?: string;
}

/** Depth past which members are written without their schema: a recursive schema never ends. */
const MAX_SCHEMA_DEPTH = 32;

export function toXml(body: unknown, schema: unknown, document: unknown): string {
  const resolved = resolve(document, schema);
  const named = refOf(schema)?.split('/').pop();
  const name = hints(resolved).name ?? (named !== undefined ? decodeURIComponent(named) : 'response');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(name, body, schema, document, 0, true)}\n`;
}

function element(
  name: string,
  value: unknown,
  schema: unknown,
  document: unknown,
  depth: number,
  root = false,
): string {
  const resolved = depth < MAX_SCHEMA_DEPTH ? resolve(document, schema) : undefined;
  const xml = hints(resolved);
  const tag = qualified(xml.name ?? name, xml.prefix);
  const namespace = xml.namespace === undefined ? '' : ` ${xmlnsName(xml.prefix)}="${xmlText(xml.namespace)}"`;
  if (Array.isArray(value)) {
    const items = isObject(resolved) ? resolved.items : undefined;
    const itemName = hints(resolve(document, items)).name ?? xml.name ?? name;
    const inner = value.map((item) => element(itemName, item, items, document, depth + 1)).join('');
    // Unwrapped (OpenAPI's default): the items stand in the parent, one element each; a document has one root.
    return xml.wrapped || root ? `<${tag}${namespace}>${inner}</${tag}>` : inner;
  }
  if (isObject(value)) {
    const properties = isObject(resolved) && isObject(resolved.properties) ? resolved.properties : {};
    let attributes = namespace;
    let children = '';
    for (const [member, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const childSchema = properties[member];
      const childHints = hints(resolve(document, childSchema));
      if (childHints.attribute && !isObject(child) && !Array.isArray(child)) {
        const attribute = qualified(childHints.name ?? member, childHints.prefix);
        attributes += ` ${xmlName(attribute)}="${xmlText(scalar(child))}"`;
      } else {
        children += element(member, child, childSchema, document, depth + 1);
      }
    }
    return `<${tag}${attributes}>${children}</${tag}>`;
  }
  if (value === null) return `<${tag}${namespace}/>`;
  return `<${tag}${namespace}>${xmlText(scalar(value))}</${tag}>`;
}

function resolve(document: unknown, schema: unknown): unknown {
  return refOf(schema) === undefined ? schema : deref(document as JsonObject, schema);
}

function hints(schema: unknown): XmlHints {
  const xml = isObject(schema) && isObject(schema.xml) ? schema.xml : {};
  return {
    ...(typeof xml.name === 'string' && xml.name !== '' ? { name: xml.name } : {}),
    ...(xml.attribute === true ? { attribute: true } : {}),
    ...(xml.wrapped === true ? { wrapped: true } : {}),
    ...(typeof xml.prefix === 'string' && xml.prefix !== '' ? { prefix: xml.prefix } : {}),
    ...(typeof xml.namespace === 'string' ? { namespace: xml.namespace } : {}),
  };
}

function qualified(name: string, prefix: string | undefined): string {
  return xmlName(prefix === undefined ? name : `${prefix}:${name}`);
}

function xmlnsName(prefix: string | undefined): string {
  return prefix === undefined ? 'xmlns' : `xmlns:${xmlName(prefix)}`;
}

/** A JSON member name as an XML name: characters XML names cannot hold become `_`, and a name never starts a digit. */
function xmlName(name: string): string {
  const cleaned = name.replace(/[^\p{L}\p{N}_.:-]/gu, '_');
  return /^[\p{L}_:]/u.test(cleaned) ? cleaned : `_${cleaned}`;
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function xmlText(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 cannot hold
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}
