import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ConcreteNetwork } from '@app/config';

/** A wallet handed to a caller through POST /wallets: the public key only, never the secret. */
@Entity('created_wallets')
export class CreatedWalletEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  network!: ConcreteNetwork;

  @Column('text')
  address!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
