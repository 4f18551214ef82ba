import { parentPort } from 'node:worker_threads';
import { runJob, type ChartsJob, type Job } from './run.js';

// A worker thread of the lab: runs one job at a time, as the lab clock requires, or renders the report's charts
// (vega is loaded only then).
parentPort!.on('message', (job: Job | ChartsJob) => {
  const work = 'charts' in job ? import('./report.js').then(async (r) => ({ charts: [...(await r.chartsOf(job.charts))] })) : runJob(job).then((result) => ({ result }));
  work.then(
    (answer) => parentPort!.postMessage(answer),
    (error: unknown) => parentPort!.postMessage({ error: String((error as Error)?.stack ?? error) }),
  );
});
