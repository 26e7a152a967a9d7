import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { selectionLimits } from '../vocabulary/selection.ts';
import { eventTypes } from '../vocabulary/event-types.ts';
import { dateTime, limits, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };
const subscribable = ['*', ...eventTypes] as const;

const urlField = () =>
  meta(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .check(z.maxLength(limits.url, { error: `is too long (maximum is ${limits.url} characters)` }))
      .check(
        z.refine(
          (v) => {
            try {
              const u = new URL(v);
              return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0 && !u.username && !u.password;
            } catch {
              return false;
            }
          },
          { error: 'must be an http(s) URL without credentials' },
        ),
      ),
    {
      format: 'uri',
      description:
        'Where events are POSTed. https is strongly advised. Port 80, 443 or 1024-65535 (the scheme default counts). ' +
        'A literal address must be public: loopback, private, link-local, unique-local, metadata, documentation, discard ' +
        'and reserved addresses are refused (422), an IPv6 address carrying an IPv4 one (mapped, compatible, NAT64, ' +
        '6to4, Teredo) by that IPv4 address; a host name is checked likewise at every delivery.',
    },
  );

const eventsField = () =>
  meta(
    z.pipe(
      z
        .array(z.enum(subscribable, { error: `must be one of: ${subscribable.join(', ')}` }), {
          error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array'),
        })
        .check(z.minLength(1, { error: 'must name at least one event' }))
        .check(z.maxLength(subscribable.length, { error: 'has too many entries' })),
      z.transform((events) => [...new Set(events)]),
    ),
    { description: `The events to receive; \`*\` for all. One of: ${subscribable.join(', ')}.` },
  );

const filterDescription =
  'Only the issue events whose issue matches this query (docs/search.md), and the comment events of such issues; ' +
  'sprint and project events are not filtered. Read as `issue.created`/`issue.updated` after the change, ' +
  '`issue.deleted` as the issue was. `@me` is the account that writes the filter, stored as its id. ' +
  'null or empty: every event. Answered in its canonical form.';

const filterField = () =>
  meta(z.nullable(z.string({ error: 'must be a string (a query, docs/search.md) or null' })), {
    description: filterDescription,
    example: 'type:bug priority:>=high',
    maxLength: selectionLimits.characters,
  });

export const WebhookCreateFields = meta(
  z.object(
    {
      url: urlField(),
      events: eventsField(),
      active: z.optional(z.boolean({ error: 'must be true or false' })),
      filter: z.optional(filterField()),
    },
    objectError,
  ),
  { id: 'WebhookCreate' },
);
export const WebhookUpdateFields = meta(
  z.object(
    {
      url: z.optional(urlField()),
      events: z.optional(eventsField()),
      active: meta(z.optional(z.boolean({ error: 'must be true or false' })), {
        description: 'true re-enables a disabled endpoint (and clears disabled_reason).',
      }),
      filter: z.optional(filterField()),
    },
    objectError,
  ),
  { id: 'WebhookUpdate' },
);
export type WebhookCreate = z.output<typeof WebhookCreateFields>;
export type WebhookUpdate = z.output<typeof WebhookUpdateFields>;

export const Webhook = meta(
  z.object({
    id: z.number().check(z.int()),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    disabled_reason: meta(z.nullable(z.string()), {
      description: 'Why delivery stopped, when the service disabled the endpoint (3 days of failures).',
    }),
    filter: meta(z.nullable(z.string()), {
      description:
        'The canonical query (docs/search.md) the issue and comment events are matched against (`@me` stored as the id ' +
        'of the account that wrote it); null: every event.',
      example: 'type:bug priority:>=high',
    }),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Webhook' },
);
export type Webhook = z.infer<typeof Webhook>;

export const WebhookWithSecret = meta(
  z.extend(Webhook, {
    secret: meta(z.string(), {
      description: 'The signing secret (Standard Webhooks, `whsec_` + base64). Shown once; store it safely.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  }),
  { id: 'WebhookWithSecret' },
);

export const WebhookCreateBody = wrapped('webhook', WebhookCreateFields, WebhookWithSecret);
export const WebhookUpdateBody = wrapped('webhook', WebhookUpdateFields, Webhook);

export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

export const Delivery = meta(
  z.object({
    id: meta(z.string(), { description: 'The `webhook-id` header of every attempt of this delivery.' }),
    event: z.string(),
    status: meta(z.enum(deliveryStatuses), {
      description: 'pending (being tried or waiting to be retried), succeeded, failed (retries exhausted), cancelled.',
    }),
    attempts: z.number().check(z.int()),
    response_code: meta(z.nullable(z.number().check(z.int())), {
      description: 'HTTP status of the last attempt; null if none came.',
    }),
    duration_ms: meta(z.nullable(z.number().check(z.int())), { description: 'Duration of the last attempt.' }),
    error: meta(z.nullable(z.string()), {
      description:
        "Why the last attempt failed, when it did, in the service's words: `HTTP status N`, `timeout: …`, `connection refused`, " +
        '`connection closed before a response`, `host unreachable`, `TLS failure: …`, `DNS failure: …`, `refused: …` (the guard).',
    }),
    next_attempt_at: z.nullable(dateTime()),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Delivery' },
);
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryList = meta(z.array(Delivery), { id: 'DeliveryList' });
