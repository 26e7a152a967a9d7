import net from 'node:net';

/**
 * Sends `bytes` on a connection of its own and gives back the head of the answer (status line and
 * headers), or fails when the connection closes or goes quiet without one.
 */
export function rawExchange(port: number, bytes: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (outcome: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`no answer to ${JSON.stringify(bytes.slice(0, 120))}`))),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end >= 0) done(() => resolve(got.slice(0, end)));
    });
    const closed = (err?: Error) =>
      done(() =>
        reject(new Error(`closed without an answer (${err?.message ?? 'EOF'}) to ${JSON.stringify(bytes.slice(0, 120))}`)),
      );
    socket.on('error', closed);
    socket.on('close', () => closed());
    socket.write(bytes, 'latin1');
  });
}
