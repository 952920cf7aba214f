// A stand-in for the editor's side: a RunServer in its own process, so a test can kill it.
// Prints "address token" on its first line, then one line per message received.
import { RunServer } from '../../extension/src/core/run/server';

void RunServer.listen({
  connect: () => console.log('connect'),
  message: (_s, m) => console.log(m.type),
}).then((s) => console.log(`${s.address} ${s.token}`));
