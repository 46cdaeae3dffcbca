/** kinesalite ships no types: the part the local starter uses. */
declare module 'kinesalite' {
  import type { Server } from 'node:http';

  interface KinesaliteOptions {
    /** Milliseconds a CreateStream takes to become ACTIVE (default 500). */
    createStreamMs?: number;
    deleteStreamMs?: number;
    updateStreamMs?: number;
    shardLimit?: number;
    /** A directory for LevelDB; default: in memory. */
    path?: string;
    ssl?: boolean;
  }

  function kinesalite(options?: KinesaliteOptions): Server;
  export default kinesalite;
}
