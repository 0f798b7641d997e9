import type { JsonSchema } from '../../library/tool.js';
import type { Echo } from './echo.js';
import type { PriorView } from './prior-values.js';
import { type FieldContext, newPersona, type Persona } from './values.js';

/** What a schema that admits no value generates; the holder leaves the field out (or, at the root, answers null). */
export const NOTHING: unique symbol = Symbol('nothing');

/** Where in the body a value goes. */
export interface Site {
  /** The field's name key ('' at the root and for items of an unnamed list). */
  key: string;
  /** The key of the nearest named holder, or the tool's resource noun at the top. */
  parent: string;
  depth: number;
  /** Inside a list: echoed ids stay out, or every item would have the same one. */
  inList: boolean;
  /** A value here is a record of the tool's resource (or a list of them): the root, `data`, `items`, `pets`… */
  record: boolean;
  /** The object holding this field is such a record, so request values echo into it. */
  inRecord: boolean;
  persona: () => Persona;
  /** Values (canonical JSON) already in a uniqueItems list: enums and booleans pick others while they can. */
  taken: Set<string> | undefined;
  /** The part of the request sent for this place (a created record repeats what it was sent, field by field). */
  mirror: unknown;
  /** `holder.field` for a field of an object a record holds (`owner.login`): where dotted echoes land. */
  dotted: string | undefined;
  /** A free-text search this field of a listed result shows (`q=weather` → `"Weather Station"`). */
  search: string[] | undefined;
  /**
   * A list here holds records of the tool's resource (`groups` of `/groups/picker`), though the place is no record
   * itself.
   */
  listRecord: boolean;
  /** A value its siblings ask for (a count equal to its list's length): taken first when it fits. */
  want: unknown;
  /**
   * Inside a list's items: the keys the first item's objects took, by their place below the item, so that later items
   * show the same ones, as one serializer writes every record of a page. A place is the holder's (`shapeAt`, made once
   * per object) and the key.
   */
  shapes: Map<string, ChosenKeys> | undefined;
  shapeAt: string;
}

/** The declared keys of an object in a list's first item, and those it took. */
export interface ChosenKeys {
  declared: ReadonlySet<string>;
  keys: ReadonlySet<string>;
}

export interface Walk {
  echo: Echo;
  /** Values generated so far: past the budget, optional fields are left out and lists are kept short. */
  nodes: number;
  /**
   * Set on the later tries of a value that keeps failing its checks (an integer for `oneOf: [integer, number]`, a
   * 5-letter word for two overlapping string lengths): leaves then skip names, echoes and examples for plain random
   * values.
   */
  loose: boolean;
  /**
   * Set while generating a value that must be there (a required field, a list minimum, the root): leaves that find no
   * valid value return their best try rather than NOTHING.
   */
  lenient: boolean;
  /** Best-effort values placed so far (see `bestEffort`): a try that needed one is not valid, and another is made. */
  faults: number;
  /** The value prior mined from the library's examples, when the library has one. */
  prior: PriorView | undefined;
  /** A cut placeholder's whole schema, from the API's document (simulator/cut-schemas.ts), where one is at hand. */
  expand: ((pointer: string) => JsonSchema | undefined) | undefined;
}

/** Nesting past which objects get only their required fields and lists their minimum length. */
const MAX_DEPTH = 10;
/** Values in one body past which the same holds: a wide schema stays a reasonable size. */
const NODE_BUDGET = 2000;

/** Whether this value should be as small as its schema allows. */
export function exhausted(site: Site, walk: Walk): boolean {
  return site.depth >= MAX_DEPTH || walk.nodes > NODE_BUDGET;
}

/**
 * A value known not to satisfy its schema: NOTHING unless the value must be there (`walk.lenient`), then counted as a
 * fault.
 */
export function bestEffort<T>(walk: Walk, value: T): T | typeof NOTHING {
  if (!walk.lenient) return NOTHING;
  walk.faults++;
  return value;
}

/** The request value this field repeats, if any (whether it fits is the caller's to check). */
export function echoFor(site: Site, walk: Walk): unknown {
  if (site.want !== undefined) return site.want;
  const { echo } = walk;
  if (site.inRecord && site.key === 'id') {
    // Listed records each have their own id.
    if (site.inList) return undefined;
    if (echo.resourceId !== undefined) return echo.resourceId;
  }
  if (site.mirror !== undefined && (site.mirror === null || typeof site.mirror !== 'object')) return site.mirror;
  if (site.dotted !== undefined) {
    const value = echo.dotted.get(site.dotted);
    if (value !== undefined) return value;
  }
  return site.inRecord ? echo.byKey.get(site.key) : undefined;
}

export function fieldContext(site: Site): FieldContext {
  return { key: site.key, parent: site.parent, persona: site.persona };
}

/** A site outside any body (a property name, a callable's arguments), `depth` levels down. */
export function rootlessSite(depth = 0): Site {
  return {
    key: '',
    parent: '',
    depth,
    inList: false,
    record: false,
    inRecord: false,
    persona: newPersona,
    taken: undefined,
    mirror: undefined,
    dotted: undefined,
    listRecord: false,
    search: undefined,
    want: undefined,
    shapes: undefined,
    shapeAt: '',
  };
}
