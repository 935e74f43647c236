import { Workbench } from './lib/workbench';
(async () => {
  const t = Date.now();
  const wb = await Workbench.open();
  console.log('open', Date.now() - t);
  try {
    await wb.command('GitOps Preview: Focus on Flux View');
    console.log('command ok', Date.now() - t);
    await wb.page.waitForTimeout(3000);
    console.log(await wb.treeRows('Flux'));
  } finally {
    await wb.screenshot('x-after');
    await wb.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
