// Shared fixtures for the page's unit tests: a small queue and a bus with a fixed clock.
import { readFileSync } from 'node:fs';
import { createQueueState } from '../js/queue_state.js';
import { createBus } from '../js/bus.js';

export function demoDocument() {
  return JSON.parse(readFileSync(new URL('../data/default_queue.json', import.meta.url), 'utf8'));
}

export function makeBus(doc = demoDocument()) {
  const state = createQueueState(doc);
  const changes = [];
  const bus = createBus({ state, now: () => new Date('2026-11-30T09:00:00Z'), onChange: (e) => changes.push(e) });
  return { state, bus, changes };
}

export function snapshot(state) {
  return JSON.stringify(state.tickets);
}
