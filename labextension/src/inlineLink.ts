// One comm per kernel to the kernel's inline completer (`jupyter_agent_inline`): its state
// (on/off), the requests in flight and their streamed text. Knows when the kernel runs a
// cell (an execute_request between its busy and idle), as opposed to the brief busy our
// own comm messages cause.
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { InlineMessage, InlineRequest, InlineStateMsg } from './protocol';

export const INLINE_TARGET = 'jupyter_agent_inline';
const HELLO_TIMEOUT_MS = 30000; // the first open builds the agent's runtime in the kernel
const RETRY_MS = 10000; // a kernel without jupyter-agent is asked again after this (or when it announces)

/** One request's suggestion as it streams. */
export class Pending {
  text = '';
  done = false;
  reason = '';
  message = '';
  private waiters: Array<() => void> = [];

  constructor(readonly id: string) {}

  add(text: string): void {
    this.text += text;
    this.wake();
  }

  end(reason: string, message = ''): void {
    if (this.done) return;
    this.done = true;
    this.reason = reason;
    this.message = message;
    this.wake();
  }

  /** Resolves on the next change (more text or the end), or after `ms`. */
  changed(ms = 60000): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise(resolve => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach(wake => wake());
  }
}

export class KernelLink {
  state: InlineStateMsg | null = null;
  private comm: Kernel.IComm | null = null;
  private opening: Promise<boolean> | null = null;
  private missingAt = 0;
  private python: Promise<boolean> | null = null;
  private pending = new Map<string, Pending>();
  private running = new Set<string>();
  onState: (state: InlineStateMsg) => void = () => undefined;

  constructor(readonly kernel: Kernel.IKernelConnection) {
    if (kernel.status === 'busy') this.running.add('unknown'); // a cell started before we listened
    kernel.iopubMessage.connect(this.onIopub, this);
  }

  /** The kernel runs a cell now (not just one of our messages). */
  get busy(): boolean {
    return this.running.size > 0 || !['idle', 'busy'].includes(this.kernel.status);
  }

  /** Open the comm if needed; true once the kernel told its state. */
  ready(): Promise<boolean> {
    if (this.comm && !this.comm.isDisposed && this.state) return Promise.resolve(true);
    if (this.opening) return this.opening;
    if (this.missingAt && Date.now() - this.missingAt < RETRY_MS) return Promise.resolve(false);
    this.opening = this.isPython()
      .then(python => (python ? this.open() : false))
      .finally(() => (this.opening = null));
    return this.opening;
  }

  /** Only an IPython kernel can hold jupyter-agent: others are never asked. */
  private isPython(): Promise<boolean> {
    this.python ??= this.kernel.info.then(
      info => (info.language_info?.name ?? '').toLowerCase() === 'python',
      () => true
    );
    return this.python;
  }

  start(request: Extract<InlineRequest, { type: 'inline_complete' }>): Pending {
    const pending = new Pending(request.request_id);
    this.pending.set(pending.id, pending);
    this.send(request);
    return pending;
  }

  cancel(pending: Pending): void {
    if (!pending.done) this.send({ type: 'inline_cancel', request_id: pending.id });
    pending.end('cancelled');
    this.pending.delete(pending.id);
  }

  private send(request: InlineRequest): void {
    if (this.comm && !this.comm.isDisposed) this.comm.send(request as any);
  }

  private open(): Promise<boolean> {
    return new Promise(resolve => {
      let settled = false;
      const settle = (ok: boolean) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(ok);
        }
      };
      const timer = setTimeout(() => settle(false), HELLO_TIMEOUT_MS);
      this.state = null; // a restarted kernel tells its state again (or refuses the comm)
      const comm = this.kernel.createComm(INLINE_TARGET);
      this.comm = comm;
      comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
        this.receive(msg.content.data as unknown as InlineMessage);
        if (this.state) settle(true);
      };
      comm.onClose = () => {
        if (!this.state) this.missingAt = Date.now(); // no jupyter-agent in this kernel (yet)
        this.comm = null;
        this.state = null;
        this.pending.forEach(p => p.end('closed'));
        this.pending.clear();
        settle(false);
      };
      comm.open({ type: 'inline_hello' });
    });
  }

  private receive(msg: InlineMessage): void {
    if (msg.kind === 'inline_state') {
      this.state = msg;
      this.onState(msg);
      return;
    }
    const pending = this.pending.get(msg.request_id);
    if (!pending) return;
    if (msg.kind === 'inline_delta') {
      pending.add(msg.text);
    } else {
      pending.end(msg.reason, msg.message ?? '');
      this.pending.delete(msg.request_id);
    }
  }

  private onIopub(_: Kernel.IKernelConnection, msg: KernelMessage.IIOPubMessage): void {
    const parent = msg.parent_header as Partial<KernelMessage.IHeader>;
    if (msg.header.msg_type === 'status') {
      const state = (msg.content as KernelMessage.IStatusMsg['content']).execution_state;
      if (state === 'idle') this.running.delete('unknown');
      if (parent?.msg_type !== 'execute_request' || !parent.msg_id) return;
      if (state === 'busy') this.running.add(parent.msg_id);
      else if (state === 'idle') this.running.delete(parent.msg_id);
    } else if (msg.header.msg_type === 'comm_open') {
      // `%load_ext jupyter_agent` announces itself: ask again at once
      if ((msg.content as KernelMessage.ICommOpenMsg['content']).target_name === 'jupyter_agent') this.missingAt = 0;
    }
  }

  dispose(): void {
    this.kernel.iopubMessage.disconnect(this.onIopub, this);
    this.pending.forEach(p => p.end('closed'));
    try {
      this.comm?.close();
    } catch {
      // the kernel is gone already
    }
  }
}
