import { getMetadataStorage } from 'class-validator';

type DtoClass = abstract new (...args: never[]) => unknown;

const declaredByClass = new WeakMap<DtoClass, ReadonlySet<string>>();

/** The fields a DTO class declares a validator for, its parents' included. */
export function declaredFields(dto: DtoClass): ReadonlySet<string> {
  let fields = declaredByClass.get(dto);
  if (!fields) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    fields = new Set(metadata.map((entry) => entry.propertyName));
    declaredByClass.set(dto, fields);
  }
  return fields;
}

/**
 * What is wrong with the fields of a body or query before class-transformer and class-validator
 * see it, one message per field. Both let two things through that this refuses:
 * - a name the DTO does not declare but its instance inherits (`toString`, `constructor`,
 *   `__defineGetter__`): class-transformer drops it silently, so the whitelist never sees it;
 * - a null: `@IsOptional()` skips it as if absent, and the service then meets a null where the
 *   type says a value. No field of the API takes null.
 * Only own fields are read: a name is declared when the DTO's own set has it, never through a
 * prototype.
 */
export function fieldProblems(value: object, dto: DtoClass): string[] {
  const declared = declaredFields(dto);
  const problems: string[] = [];
  for (const name of Object.keys(value)) {
    if (!declared.has(name)) problems.push(`${name} is not an accepted field`);
    else if ((value as Record<string, unknown>)[name] === null) {
      problems.push(`${name} must not be null`);
    }
  }
  return problems;
}
