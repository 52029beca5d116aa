// The panel's end of the `jupyter_agent` comm: open, greet, route messages, detect a
// kernel without the extension (it closes an unknown comm target at once).
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { KernelMessage as Incoming, PanelRequest, HelloMsg } from './protocol';

export const TARGET = 'jupyter_agent';
const HELLO_TIMEOUT_MS = 45000; // a loaded machine can take a while to import the runtime

export type OpenResult = { state: 'open'; hello: HelloMsg } | { state: 'missing' } | { state: 'timeout' };

export class AgentComm {
  private comm: Kernel.IComm | null = null;
  private closedByUs = false;
  private greeted = false;
  onMessage: (msg: Incoming) => void = () => undefined;
  onClose: () => void = () => undefined;

  constructor(readonly kernel: Kernel.IKernelConnection, private notebookPath: string) {}

  get isOpen(): boolean {
    return this.comm !== null && !this.comm.isDisposed;
  }

  /** Open the comm and wait for the kernel's hello (or its refusal). */
  open(): Promise<OpenResult> {
    return new Promise(resolve => {
      let settled = false;
      const settle = (result: OpenResult) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(result);
        }
      };
      const timer = setTimeout(() => settle({ state: 'timeout' }), HELLO_TIMEOUT_MS);
      const comm = this.kernel.createComm(TARGET);
      this.comm = comm;
      comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
        const data = msg.content.data as unknown as Incoming;
        if (data.kind === 'hello') {
          this.greeted = true;
          settle({ state: 'open', hello: data });
        }
        this.onMessage(data);
      };
      comm.onClose = () => {
        this.comm = null;
        settle({ state: 'missing' });
        // a refused open (no extension) is an answer, not a lost connection
        if (this.greeted && !this.closedByUs) this.onClose();
      };
      comm.open({ type: 'hello', notebook_path: this.notebookPath });
    });
  }

  send(request: PanelRequest): void {
    if (this.comm && !this.comm.isDisposed) this.comm.send(request as any);
  }

  close(): void {
    this.closedByUs = true;
    if (this.comm && !this.comm.isDisposed) {
      try {
        this.comm.close();
      } catch {
        // the kernel is already gone
      }
    }
    this.comm = null;
  }
}
