// Giving the page its turn: the start's long steps run in tasks of their own, so the lab's own work (a
// click, a render) is never held up behind a run of them.

const TASK_SLICE_MS = 25;

/** Resolves in a later task (scheduler.yield where the browser has it). */
export const yieldToPage = () =>
  globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise(resolve => setTimeout(resolve, 0));

/** Gives the page its turn once the work since its last turn has run a few tens of milliseconds. */
export function turnTaker() {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart > TASK_SLICE_MS) {
      await yieldToPage();
      sliceStart = performance.now();
    }
  };
}

/** A stream that passes its chunks on, giving the page its turn every few tens of milliseconds, whoever reads it. */
export function givingTurns() {
  const turn = turnTaker();
  return new TransformStream({
    async transform(chunk, controller) {
      controller.enqueue(chunk);
      await turn();
    }
  });
}
