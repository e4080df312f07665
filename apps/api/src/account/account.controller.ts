import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { ok, type SuccessEnvelope } from '@app/common';
import { AccountService, ApiKeyService } from '@app/domain';
import { AccountId, Public, SessionAuth } from '../auth/auth.decorators';
import { SESSION_COOKIE, clearSessionCookie, setSessionCookie } from '../auth/session-cookie';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { arrayOf, strictObject, text } from '../http/docs/schema';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { AuthThrottle } from '../rate-limit/auth-throttle';
import {
  presentAccount,
  presentApiKey,
  presentIssuedApiKey,
  type AccountView,
  type ApiKeyView,
  type IssuedApiKeyView,
} from './account.presenter';
import { ACCOUNT_VIEW, API_KEY_VIEW, ISSUED_API_KEY } from './account.schema';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { LoginDto, RegisterDto } from './dto/credentials.dto';

/** The dashboard's JSON endpoints (contract: "Accounts and keys"), on a session cookie. */
@ApiTags('account')
@SessionAuth()
@Controller('account')
export class AccountController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountService,
    private readonly apiKeys: ApiKeyService,
    private readonly throttle: AuthThrottle,
  ) {}

  @Public()
  @Post('register')
  @HttpCode(200)
  @ApiEnvelope(
    'Account created, with its managed wallets; sets the session cookie',
    ACCOUNT_VIEW,
    [400, 409, 429],
  )
  async register(
    @Body() body: RegisterDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<AccountView>> {
    await this.throttle.admitRegistration(request.ip, body.email);
    const { account, session } = await this.accounts.register(body.email, body.password);
    setSessionCookie(reply, session, this.config);
    return ok(presentAccount(account), 'Account created.');
  }

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiEnvelope('Signed in; sets the session cookie', ACCOUNT_VIEW, [400, 401, 429])
  async login(
    @Body() body: LoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<AccountView>> {
    await this.throttle.admitLogin(request.ip, body.email);
    const { account, session } = await this.accounts.login(body.email, body.password);
    await this.throttle.loginSucceeded(body.email);
    setSessionCookie(reply, session, this.config);
    return ok(presentAccount(account), 'Signed in.');
  }

  @Public()
  @Post('logout')
  @HttpCode(200)
  @ApiEnvelope('Signed out; clears the session cookie', strictObject({}), [])
  async logout(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<Record<string, never>>> {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await this.accounts.logout(token);
    clearSessionCookie(reply, this.config);
    return ok({}, 'Signed out.');
  }

  @ApiCookieAuth(SESSION_SCHEME)
  @Get()
  @ApiEnvelope('The signed-in account and its managed wallets', ACCOUNT_VIEW, [401])
  async me(@AccountId() accountId: string): Promise<SuccessEnvelope<AccountView>> {
    return ok(presentAccount(await this.accounts.profile(accountId)), 'Account.');
  }

  @ApiCookieAuth(SESSION_SCHEME)
  @Post('api-keys')
  @HttpCode(200)
  @ApiEnvelope(
    'A new API key; `key` is shown only in this response',
    ISSUED_API_KEY,
    [400, 401, 403, 409],
  )
  async issueKey(
    @AccountId() accountId: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<SuccessEnvelope<IssuedApiKeyView>> {
    return ok(
      presentIssuedApiKey(await this.apiKeys.issue(accountId, body.name)),
      'API key issued. Store it now: it is not shown again.',
    );
  }

  @ApiCookieAuth(SESSION_SCHEME)
  @Get('api-keys')
  @ApiEnvelope(
    'The account API keys, without their secrets',
    strictObject({ api_keys: arrayOf(API_KEY_VIEW) }),
    [401],
  )
  async listKeys(
    @AccountId() accountId: string,
  ): Promise<SuccessEnvelope<{ api_keys: ApiKeyView[] }>> {
    const keys = await this.apiKeys.list(accountId);
    return ok({ api_keys: keys.map(presentApiKey) }, 'API keys.');
  }

  @ApiCookieAuth(SESSION_SCHEME)
  @Delete('api-keys/:id')
  @ApiEnvelope(
    'The key is revoked and answers 401 from now on',
    strictObject({ id: text, revoked: { type: 'boolean', enum: [true] } }),
    [401, 403, 404],
  )
  async revokeKey(
    @AccountId() accountId: string,
    @Param('id') id: string,
  ): Promise<SuccessEnvelope<{ id: string; revoked: true }>> {
    await this.apiKeys.revoke(accountId, id);
    return ok({ id, revoked: true }, 'API key revoked.');
  }
}
