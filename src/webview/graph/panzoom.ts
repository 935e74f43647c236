/** Pan by dragging the background, zoom with the wheel around the pointer, fit and center. */
export class PanZoom {
  private x = 0;
  private y = 0;
  private k = 1;
  private drag: { x: number; y: number; moved: boolean } | undefined;
  /** Whether the last pointer-down ended a drag (so it is no click). */
  dragged = false;

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly viewport: SVGGElement,
  ) {
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const factor = Math.exp(-e.deltaY * 0.0015);
      this.zoomAt(e.offsetX, e.offsetY, factor);
    }, { passive: false });
    svg.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      this.drag = { x: e.clientX, y: e.clientY, moved: false };
      this.dragged = false;
    });
    window.addEventListener('pointermove', (e) => {
      if (!this.drag) return;
      const dx = e.clientX - this.drag.x;
      const dy = e.clientY - this.drag.y;
      if (!this.drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      this.drag.moved = true;
      this.svg.classList.add('panning');
      this.x += dx;
      this.y += dy;
      this.drag.x = e.clientX;
      this.drag.y = e.clientY;
      this.apply();
    });
    window.addEventListener('pointerup', () => {
      this.dragged = !!this.drag?.moved;
      this.drag = undefined;
      this.svg.classList.remove('panning');
    });
    svg.addEventListener('keydown', (e) => {
      const step = 60;
      if (e.key === '+' || e.key === '=') this.zoomAt(this.width() / 2, this.height() / 2, 1.2);
      else if (e.key === '-') this.zoomAt(this.width() / 2, this.height() / 2, 1 / 1.2);
      else if (e.key === 'ArrowLeft') this.x += step;
      else if (e.key === 'ArrowRight') this.x -= step;
      else if (e.key === 'ArrowUp') this.y += step;
      else if (e.key === 'ArrowDown') this.y -= step;
      else return;
      this.apply();
    });
  }

  private width(): number {
    return this.svg.clientWidth || 800;
  }

  private height(): number {
    return this.svg.clientHeight || 600;
  }

  zoomAt(px: number, py: number, factor: number): void {
    const k = Math.min(4, Math.max(0.05, this.k * factor));
    this.x = px - ((px - this.x) * k) / this.k;
    this.y = py - ((py - this.y) * k) / this.k;
    this.k = k;
    this.apply();
  }

  /** Shows the whole `width` × `height` drawing, never enlarged past 1.5×. */
  fit(width: number, height: number): void {
    if (!width || !height) return;
    this.k = Math.min(1.5, (this.width() - 16) / width, (this.height() - 16) / height);
    this.x = (this.width() - width * this.k) / 2;
    this.y = (this.height() - height * this.k) / 2;
    this.apply();
  }

  /** Moves drawing point (x, y) to the middle of the view, keeping the zoom (at least 0.6×). */
  center(x: number, y: number): void {
    this.k = Math.max(this.k, 0.6);
    this.x = this.width() / 2 - x * this.k;
    this.y = this.height() / 2 - y * this.k;
    this.apply();
  }

  private apply(): void {
    this.viewport.setAttribute('transform', `translate(${this.x},${this.y}) scale(${this.k})`);
  }
}
