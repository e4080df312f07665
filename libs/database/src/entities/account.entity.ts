import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn('uuid')
  id!: string;

  /** Stored lower-cased: one account per address however it is typed. */
  @Column('text', { unique: true })
  email!: string;

  @Column('text', { name: 'password_hash' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
