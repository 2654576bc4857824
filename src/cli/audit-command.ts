/**
 * `modelworks audit rotate-key`: a new audit key for new checkpoints, the old one kept (retired) to
 * verify the checkpoints it made (store/audit-key-rotation.ts). Loads nothing until it runs.
 */
import type { Command } from 'commander';
import { EXIT, reportFailure } from './cli-errors.js';
import { examples } from './help-text.js';

export function registerAuditCommands(program: Command): Command {
  const audit = program.command('audit').description('audit trail keys (see docs/stores.md)');
  const rotate = audit
    .command('rotate-key')
    .description(
      'make a new audit key for new checkpoints; the old key stays in the key file, retired, to verify the checkpoints it made (restart the servers afterwards)',
    )
    .action(async () => {
      const { rotateAuditKey } = await import('../store/audit-key-rotation.js');
      try {
        const r = rotateAuditKey(process.env);
        const retired = r.retiredIds.length
          ? `; retired key${r.retiredIds.length === 1 ? '' : 's'} ${r.retiredIds.join(', ')} still verif${r.retiredIds.length === 1 ? 'ies' : 'y'} the checkpoints made before`
          : ' (there was no key yet)';
        process.stdout.write(
          `rotated the audit key in ${r.file}: new key id ${r.keyId}${retired}; restart every server that shares a store to use it\n`,
        );
      } catch (err) {
        reportFailure('modelworks', (err as Error).message, err);
        // a setting to change is a usage error; a file that cannot be read or written a failure
        process.exitCode = (err as { code?: unknown }).code === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.failed;
      }
    });
  examples(
    rotate,
    'modelworks audit rotate-key',
    'MODELWORKS_AUDIT_KEY_FILE=/etc/modelworks/audit.key modelworks audit rotate-key',
  );
  examples(audit, 'modelworks audit rotate-key');
  return audit;
}
