/**
 * When the test setup may install a missing redis-server by itself: only as root and only with apt-get;
 * everywhere else it must explain instead (the message itself is checked in the integration launcher test).
 */
import { describe, expect, it } from 'vitest';
import { redisInstallPlan } from '../../../infra/redis-local.js';

describe('redisInstallPlan', () => {
  it('installs as root where apt-get exists', () => {
    expect(redisInstallPlan({ uid: 0, hasAptGet: true })).toEqual({ install: true });
  });

  it('does not install for another user, and says why', () => {
    expect(redisInstallPlan({ uid: 1000, hasAptGet: true })).toEqual({ install: false, why: 'not running as root' });
  });

  it('does not install where the platform has no uid (Windows)', () => {
    expect(redisInstallPlan({ uid: undefined, hasAptGet: true }).install).toBe(false);
  });

  it('does not install without apt-get, and says why', () => {
    expect(redisInstallPlan({ uid: 0, hasAptGet: false })).toEqual({ install: false, why: 'apt-get is not on PATH' });
  });
});
