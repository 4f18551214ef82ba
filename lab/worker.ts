import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './run.js';

// A worker thread of the lab: runs one job at a time, as the lab clock requires.
parentPort!.on('message', (job: Job) => {
  runJob(job).then(
    (result) => parentPort!.postMessage({ result }),
    (error: unknown) => parentPort!.postMessage({ error: String((error as Error)?.stack ?? error) }),
  );
});
