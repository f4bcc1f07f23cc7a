/**
 * The query of `GET /v2/stream` (docs/realtime.md "Server-sent events"): the socket start's choices
 * as query parameters, lists comma-separated, and where to resume from. Each field has the
 * documented 400 message naming it.
 */
import { Type, type Static } from 'typebox';
import type { SessionSpec } from '../sessions/socket-sessions.ts';
import { parsePlaceFilters, placeFilterMessages } from '../telegrams/place-filters.ts';
import { TELEGRAM_ID_PATTERN, resumeMessages } from '../telegrams/resume-point.ts';

/** At most 32 names of at most 64 characters each, comma-separated (as the socket start's lists). */
const MAX_CLASSIFICATIONS = 32;
const MAX_TYPES = 30;
const MAX_NAME = 64;
const MAX_APP_NAME_BYTES = 24;

export const StreamQuery = Type.Object(
  {
    classifications: Type.String({
      minLength: 1,
      maxLength: MAX_CLASSIFICATIONS * (MAX_NAME + 1),
      description: 'Comma-separated classifications (as `classifications` of POST /v2/socket)',
    }),
    types: Type.Optional(
      Type.String({
        maxLength: MAX_TYPES * (MAX_NAME + 1),
        description: 'Comma-separated data types; `!CODE` excludes one (as `types` of POST /v2/socket)',
      }),
    ),
    test: Type.Optional(
      Type.Union([Type.Literal('no'), Type.Literal('including')], {
        description: '`no` (default) or `including`',
      }),
    ),
    formatMode: Type.Optional(
      Type.Union([Type.Literal('raw'), Type.Literal('json')], { description: '`raw` (default) or `json`' }),
    ),
    appName: Type.Optional(
      Type.String({ maxLength: MAX_APP_NAME_BYTES, description: 'Shown in GET /v2/socket' }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: TELEGRAM_ID_PATTERN,
        description:
          'Resume after this telegram id (the `id` of an event or of a list item); `Last-Event-ID` wins when both are sent',
      }),
    ),
    // Read and checked by telegrams/place-filters.ts, as the socket start's fields.
    areas: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description:
          'Comma-separated prefecture codes (01–47) and JMA area codes, in one parameter or repeated (as `areas` of POST /v2/socket)',
      }),
    ),
    minIntensity: Type.Optional(
      Type.String({
        description: '1…4, 5-, 5+, 6-, 6+, 7 (`+` encoded as %2B; as `minIntensity` of POST /v2/socket)',
      }),
    ),
    key: Type.Optional(Type.String({ description: 'API key (alternative to the Authorization header)' })),
  },
  { additionalProperties: true },
);

export type StreamQueryValue = Static<typeof StreamQuery>;

/**
 * The query of the public streams (docs/realtime.md "Public streams"): the stream's, without a
 * credential or an application name, and `classifications` optional (default: every public one).
 */
export const PublicStreamQuery = Type.Object(
  {
    ...Type.Omit(StreamQuery, ['key', 'appName', 'classifications']).properties,
    classifications: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CLASSIFICATIONS * (MAX_NAME + 1),
        description: 'Comma-separated classifications among the public ones (default: every public one)',
      }),
    ),
  },
  { additionalProperties: true },
);

export type PublicStreamQueryValue = Static<typeof PublicStreamQuery>;

/** The documented messages of the stream's parameters (docs/api-contract.md "Errors"). */
export const streamMessages = {
  classifications: 'The `classifications` is a comma-separated list of 1 to 32 names.',
  types: 'The `types` is a comma-separated list of at most 30 names.',
  test: 'The `test` is `no` or `including`.',
  formatMode: 'You have entered a string that is not defined in `formatMode`.',
  appName: 'The `appName` is up to 24 bytes.',
  after: resumeMessages.malformed('after'),
  ...placeFilterMessages,
} as const;

/** The message of a public stream's `classifications` that names one not made public. */
export const notPublicMessage = (publicOnes: readonly string[]) =>
  `The \`classifications\` must be among the public ones: ${publicOnes.join(', ')}.`;

/**
 * The delivery a public stream's query asks for: its classifications (every public one by default)
 * must all be public; the other fields are the stream's. An `appName`, which the query does not
 * define (so it may come repeated, or of any length), is not read.
 */
export function publicStreamSpec(
  query: PublicStreamQueryValue,
  publicOnes: readonly string[],
): SessionSpec | { invalid: string } {
  const classifications = query.classifications ?? publicOnes.join(',');
  const spec = streamSpec({ ...query, classifications, appName: undefined });
  if ('invalid' in spec) return spec;
  if (spec.classifications.some((c) => !publicOnes.includes(c)))
    return { invalid: notPublicMessage(publicOnes) };
  return spec;
}

/** A comma-separated list: entries trimmed, empty ones dropped, repeats kept once. */
function listOf(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
}

/** The session the query asks for, or the message of the field that is wrong. */
export function streamSpec(query: StreamQueryValue): SessionSpec | { invalid: string } {
  const classifications = listOf(query.classifications);
  if (classifications.length === 0 || classifications.length > MAX_CLASSIFICATIONS)
    return { invalid: streamMessages.classifications };
  const types = query.types === undefined ? [] : listOf(query.types);
  if (types.length > MAX_TYPES) return { invalid: streamMessages.types };
  if ([...classifications, ...types].some((name) => name.length > MAX_NAME))
    return {
      invalid: types.some((t) => t.length > MAX_NAME) ? streamMessages.types : streamMessages.classifications,
    };
  if (query.appName !== undefined && Buffer.byteLength(query.appName) > MAX_APP_NAME_BYTES)
    return { invalid: streamMessages.appName };
  const place = parsePlaceFilters(query, 'query');
  if (!place.ok) return { invalid: place.message };
  return {
    ...place.value,
    classifications,
    types: types.length > 0 ? types : null,
    test: query.test ?? 'no',
    formatMode: query.formatMode ?? 'raw',
    appName: query.appName ?? null,
  };
}
