// What the view talks through: anywidget's model in a cell, one backed by the comm in the panel.
import type {
  AddCellRequest, ApproveRequest, CompactRequest, FixRequest, OlderRequest, ReadyRequest, RevertRequest, StopRequest,
  UnrevertRequest
} from '../protocol';

/** What a view sends to the kernel ("Add as cell" and a verification's Fix go through the panel). */
export type WidgetRequest =
  ReadyRequest | StopRequest | ApproveRequest | CompactRequest | OlderRequest | AddCellRequest | FixRequest |
  RevertRequest | UnrevertRequest;

/** The anywidget model the view talks through (the side panel passes one backed by its comm). */
export interface WidgetModel {
  get(name: 'can_compact' | 'can_revert' | 'contained'): unknown;
  send(message: WidgetRequest): void;
  on(event: 'msg:custom', listener: (msg: unknown) => void): void;
  off(event: 'msg:custom', listener: (msg: unknown) => void): void;
}
