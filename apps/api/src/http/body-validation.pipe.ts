import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { AppError } from '@app/common';
import { fieldProblems } from './body-fields';
import { entriesInBulk } from './bulk-entries';

/**
 * The global validation pipe: DTO classes transform and validate, unknown fields are refused
 * (a typo like `max_suply` should not pass silently), and every problem is named in the 400.
 */
export class BodyValidationPipe extends ValidationPipe {
  private readonly acceptedQueries = new AcceptedQueries();

  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors: ValidationError[]) =>
        AppError.badRequest(boundedProblems(describeErrors(errors))),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata) && !isPlainObject(value)) {
      throw AppError.badRequest('The body must be a JSON object.');
    }
    if (this.toValidate(metadata) && typeof value === 'object' && value !== null) {
      const problems = fieldProblems(value, metadata.metatype!);
      if (problems.length > 0) throw AppError.badRequest(problems.join('; ') + '.');
    }
    if (metadata.type === 'body' && this.toValidate(metadata) && typeof value === 'object') {
      const bulk = value && entriesInBulk(value, metadata.metatype!);
      if (bulk) {
        // The rest of the body through class-validator, one entry standing for them all.
        const rest = (await super.transform(
          { ...value, [bulk.field]: bulk.entries.slice(0, 1) },
          metadata,
        )) as Record<string, unknown>;
        rest[bulk.field] = bulk.entries;
        return rest;
      }
    }
    const query = metadata.type === 'query' ? AcceptedQueries.keyOf(value) : null;
    if (query !== null && this.toValidate(metadata)) {
      const metatype = metadata.metatype!;
      // What the validating path answers for an accepted query: the class's instance of it.
      if (this.acceptedQueries.has(metatype, query)) return plainToInstance(metatype, value);
      const transformed: unknown = await super.transform(value, metadata);
      this.acceptedQueries.add(metatype, query);
      return transformed;
    }
    return super.transform(value ?? {}, metadata);
  }
}

/**
 * The queries each DTO class accepted, as their text (bounded per class): validation is pure,
 * so the same query passes again. Most reads come with no query or the same few (`?network=`),
 * and validating again on each (class-validator reads the class's metadata every time) was
 * about 6% of a small read's CPU. Only flat queries of plain strings are kept: nothing that
 * the pipe's own preparation (prototype keys, arrays, binary values) would change.
 */
class AcceptedQueries {
  private readonly byClass = new Map<unknown, Set<string>>();

  constructor(
    private readonly perClass = 1_000,
    private readonly longest = 256,
  ) {}

  /** The query's text when it may be kept: an object of string values under plain names. */
  static keyOf(value: unknown): string | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    for (const [name, field] of Object.entries(value)) {
      if (typeof field !== 'string' || RESERVED_NAMES.has(name)) return null;
    }
    // Own names only: Object.keys of a query object (null prototype) is its fields.
    if (Object.getOwnPropertyNames(value).length !== Object.keys(value).length) return null;
    return JSON.stringify(value);
  }

  has(metatype: unknown, key: string): boolean {
    return this.byClass.get(metatype)?.has(key) ?? false;
  }

  add(metatype: unknown, key: string): void {
    if (key.length > this.longest) return;
    let accepted = this.byClass.get(metatype);
    if (!accepted) this.byClass.set(metatype, (accepted = new Set()));
    if (accepted.size >= this.perClass) accepted.delete(accepted.values().next().value!);
    accepted.add(key);
  }
}

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(value: unknown): boolean {
  return (
    value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value))
  );
}
/** The most problems one 400 names (an airdrop of 10,000 bad entries names the first few). */
const NAMED_PROBLEMS_MAX = 20;

function boundedProblems(problems: string[]): string {
  const named = problems.slice(0, NAMED_PROBLEMS_MAX).join('; ');
  const more = problems.length - NAMED_PROBLEMS_MAX;
  return more > 0 ? `${named} (and ${more} more problems).` : `${named}.`;
}

export function describeErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    // An entry of an array is named by its index: `recipients[3].amount`.
    const path = !parent
      ? error.property
      : /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => {
      if (constraint === 'whitelistValidation') return `${path} is not an accepted field`;
      return parent && message.startsWith(error.property) ? `${parent}.${message}` : message;
    });
    return [...own, ...describeErrors(error.children ?? [], path)];
  });
}
