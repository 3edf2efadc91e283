/**
 * The catalogs the contract tests hold the gateway to its OpenAPI document on, each built and
 * served over real HTTP with a user signed in: the gateway fixture (tests/gateway/fixtures.ts: an
 * ambiguous sha prefix, a removed package, dangling and shadowed names), the demo catalog
 * (demo/: about fifty real packages, advisories and scorecards), and an output directory with
 * nothing published (the answers of a catalog before its first build).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { buildFixture, sharedPrefixes } from '../gateway/fixtures.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { build } from '../helpers/catalog.ts';

export interface ServedCatalog {
  readonly label: string;
  readonly gw: Gateway;
  /** The signed-in user's `name=value` cookie. */
  readonly cookie: string;
  /** The first-parent chain, oldest first. */
  readonly shas: readonly string[];
  /** A package at the tip with dependencies and a version history. */
  readonly name: string;
  /** A 7-hex prefix of two commits, when the catalog has one. */
  readonly ambiguous: string | null;
  close(): Promise<void>;
}

async function served(label: string, out: string, dir: string, shas: readonly string[], name: string, cleanup: () => Promise<void>): Promise<ServedCatalog> {
  const gw = await startGateway(out, dir);
  return {
    label,
    gw,
    cookie: await gw.signIn(),
    shas,
    name,
    ambiguous: sharedPrefixes(shas)[0]?.[0]?.slice(0, 7) ?? null,
    close: async () => {
      await gw.close();
      await cleanup();
    },
  };
}

export async function gatewayFixture(): Promise<ServedCatalog> {
  const fx = await buildFixture();
  return served('gateway fixture', fx.out, fx.dir, fx.shas, 'curl', fx.cleanup);
}

export async function demoCatalog(): Promise<ServedCatalog> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-contract-demo-'));
  const shas = await makeDemoCatalog(join(dir, 'catalog'));
  await build(join(dir, 'catalog'), join(dir, 'out'));
  return served('demo', join(dir, 'out'), dir, shas, 'curl', () => rm(dir, { recursive: true, force: true }));
}

/** A gateway over an output directory no build has written yet. */
export async function nothingPublished(): Promise<{ gw: Gateway; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-contract-empty-'));
  await mkdir(join(dir, 'out'));
  const gw = await startGateway(join(dir, 'out'), dir);
  return {
    gw,
    close: async () => {
      await gw.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
