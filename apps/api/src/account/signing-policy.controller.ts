import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBody, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { ok, type SuccessEnvelope } from '@app/common';
import { SigningPolicies, type SigningPolicy } from '@app/domain';
import { AccountId, SessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { SIGNING_POLICY_BODY, SIGNING_POLICY_VIEW } from './signing-policy.schema';

/**
 * The account's signing policies (docs/security.md#signing-policies). A session only: an API key
 * is 403 here, so a leaked key cannot lift the rules that bound what it can do.
 */
@ApiTags('account')
@ApiCookieAuth(SESSION_SCHEME)
@SessionAuth()
@Controller('account/policies')
export class SigningPolicyController {
  constructor(private readonly policies: SigningPolicies) {}

  @Get()
  @ApiEnvelope(
    "The account's signing policies ({} when it has none)",
    SIGNING_POLICY_VIEW,
    [401, 403],
  )
  async read(@AccountId() accountId: string): Promise<SuccessEnvelope<SigningPolicy>> {
    return ok(await this.policies.of(accountId), 'Signing policies.');
  }

  @Put()
  @ApiBody({ schema: SIGNING_POLICY_BODY })
  @ApiEnvelope(
    'The policies replaced by the body (a rule left out is lifted; {} lifts them all)',
    SIGNING_POLICY_VIEW,
    [400, 401, 403],
  )
  async replace(
    @AccountId() accountId: string,
    @Body() body: Record<string, unknown>,
  ): Promise<SuccessEnvelope<SigningPolicy>> {
    return ok(await this.policies.replace(accountId, body), 'Signing policies saved.');
  }
}
