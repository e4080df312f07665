import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppError } from '@app/common';

/**
 * The global validation pipe: DTO classes transform and validate, unknown fields are refused
 * (a typo like `max_suply` should not pass silently), and every problem is named in the 400.
 */
export class BodyValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors: ValidationError[]) =>
        AppError.badRequest(describeErrors(errors).join('; ') + '.'),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata) && !isPlainObject(value)) {
      throw AppError.badRequest('The body must be a JSON object.');
    }
    return super.transform(value ?? {}, metadata);
  }
}

function isPlainObject(value: unknown): boolean {
  return (
    value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value))
  );
}

export function describeErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => {
      if (constraint === 'whitelistValidation') return `${path} is not an accepted field`;
      return parent && message.startsWith(error.property) ? `${parent}.${message}` : message;
    });
    return [...own, ...describeErrors(error.children ?? [], path)];
  });
}
