import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';

export class RegisterDto {
  @ApiProperty({ format: 'email', maxLength: 254, example: 'dev@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 12, maxLength: 256 })
  @IsString()
  @MinLength(12, { message: 'password must be at least 12 characters' })
  @MaxLength(256)
  password!: string;
}

export class LoginDto {
  @ApiProperty({ maxLength: 254, example: 'dev@example.com' })
  @IsString()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MaxLength(256)
  password!: string;
}
