// The room WebSocket with automatic reconnection (backoff up to 8 s) and a keep-alive ping.
const CONNECT_TIMEOUT_MS = 5000;

export class RoomSocket {
  constructor(roomId, { onFrame, onStatus }) {
    this.roomId = roomId;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.refs = 0;
    this.ping = null;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // ?game=changes: each events frame carries only what changed in the game (less than half the bytes).
    const ws = new WebSocket(`${proto}//${location.host}/ws/rooms/${encodeURIComponent(this.roomId)}?game=changes`);
    this.ws = ws;
    this.onStatus('connecting');
    // A handshake that hangs (a flaky mobile network, a proxy) is abandoned and retried like a drop.
    const giveUp = setTimeout(() => { if (ws.readyState === WebSocket.CONNECTING) ws.close(); }, CONNECT_TIMEOUT_MS);
    ws.onopen = () => {
      clearTimeout(giveUp);
      this.retry = 0;
      this.onStatus('online');
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: 'ping' }), 20000);
    };
    ws.onmessage = (e) => {
      let frame;
      try { frame = JSON.parse(e.data); } catch { return; }
      this.onFrame(frame);
    };
    ws.onclose = (e) => {
      clearTimeout(giveUp);
      clearInterval(this.ping);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus('offline');
      if (e.code === 4401 || e.code === 4404) { this.onFrame({ type: 'closed', code: e.code }); return; }
      const delay = Math.min(8000, 400 * 2 ** this.retry++);
      setTimeout(() => this.connect(), delay);
    };
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const ref = ++this.refs;
    this.ws.send(JSON.stringify({ ...frame, ref }));
    return ref;
  }

  close() {
    this.closed = true;
    clearInterval(this.ping);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}
