// Keeping what the user reads in place while content grows above it: an earlier page of
// messages comes in above the one they were reading, and its parts may still be rendering
// (or arrive after the page's end). Until the page settles or the user scrolls, every growth
// is measured before it is painted and the scroll moves by as much; the browser's own scroll
// anchoring is off meanwhile, so the two never add up.

const PIN_MS = 1500;

interface Pin {
  node: Element;
  top: number;
  until: number;
  scroller: HTMLElement | null;
  /** The scroll position the pin left: any other is the user's. */
  expect: number;
}

export class ScrollPin {
  private pin: Pin | null = null;
  private readonly onScroll = (): void => {
    const pin = this.pin;
    if (pin?.scroller && Math.abs(pin.scroller.scrollTop - pin.expect) > 1) this.release();
  };

  /** Watch `stream` (its growth) and `root` (the user's own scrolling input). */
  constructor(stream: HTMLElement, root: HTMLElement) {
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.keep()).observe(stream);
    for (const input of ['wheel', 'touchstart', 'keydown', 'pointerdown']) {
      root.addEventListener(input, () => this.release(), { passive: true, capture: true });
    }
  }

  /** Hold `node` where it stood (`top`, from getBoundingClientRect) for a while. */
  hold(node: Element, top: number): void {
    this.release();
    this.pin = { node, top, until: Date.now() + PIN_MS, scroller: null, expect: 0 };
  }

  /** Put the held node back in place (after a render, on growth). */
  keep(): void {
    const pin = this.pin;
    if (!pin) return;
    if (!pin.node.isConnected || Date.now() > pin.until) return this.release();
    if (!pin.scroller) {
      const scroller = scrollParent(pin.node);
      if (!(scroller instanceof HTMLElement)) return;
      pin.scroller = scroller;
      scroller.style.overflowAnchor = 'none';
      scroller.addEventListener('scroll', this.onScroll, { passive: true });
    }
    const moved = pin.node.getBoundingClientRect().top - pin.top;
    if (Math.abs(moved) >= 0.5) pin.scroller.scrollTop += moved;
    pin.expect = pin.scroller.scrollTop;
  }

  /** The user scrolled (or the page has settled): what they read is theirs to move again. */
  release(): void {
    const pin = this.pin;
    this.pin = null;
    if (!pin?.scroller) return;
    pin.scroller.style.overflowAnchor = '';
    pin.scroller.removeEventListener('scroll', this.onScroll);
  }
}

/** The element that scrolls `node` (the side panel's stream, or the page). */
export function scrollParent(node: Element): Element | null {
  for (let p = node.parentElement; p; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowY;
    if ((overflow === 'auto' || overflow === 'scroll') && p.scrollHeight > p.clientHeight) return p;
  }
  return document.scrollingElement;
}
