/**
 * `modelworks calc generate "<description>"`: a ModelSpec from plain language through the
 * configured provider (MODELWORKS_LLM_*, docs/generate.md), with the repair loop's progress on
 * stderr. The spec goes to stdout, or to `--out` (written whole or not at all). Exits 0 with a
 * valid spec, 1 when the loop gave up or the provider failed, 2 for bad usage or settings.
 */
import type { Command } from 'commander';
import type { ProgressFrame } from '../service/generate.js';
import { EXIT } from './cli-errors.js';
import { examples } from './help-text.js';

interface GenerateOptions {
  out?: string;
  modelId?: string;
  view?: boolean;
  topics?: string;
  json?: boolean;
}

/** One stderr line per progress frame, in words. */
export function progressLine(f: ProgressFrame): string {
  switch (f.phase) {
    case 'retrying':
      return `attempt ${f.attempt} of at most ${f.maxAttempts}`;
    case 'llm_requesting':
      return `attempt ${f.attempt}: asking ${f.provider} (${f.model})`;
    case 'validating':
      return `attempt ${f.attempt}: validating`;
    case 'validation_failed':
      return `attempt ${f.attempt}: ${f.errorCount} problem(s): ${f.errors.join('; ')}`;
    case 'test_running':
      return `attempt ${f.attempt}: running the embedded tests`;
    case 'test_failed':
      return `attempt ${f.attempt}: ${f.failCount} embedded test(s) failed`;
  }
}

async function generate(description: string, opts: GenerateOptions): Promise<number> {
  const { llmClientFromEnv, LlmError } = await import('../llm/index.js');
  const { SpecGenerator } = await import('../service/generate.js');
  const { loadGuidanceTopics } = await import('../service/guidance/catalog.js');
  const say = (line: string): void => void process.stderr.write(`modelworks: ${line}\n`);
  let llm;
  try {
    llm = llmClientFromEnv();
  } catch (err) {
    say((err as Error).message);
    return EXIT.usage;
  }
  const generator = new SpecGenerator(
    llm,
    loadGuidanceTopics(process.env.MODELWORKS_DOMAIN_GUIDANCE_TOPICS_FILE, say),
  );
  const controller = new AbortController();
  const stop = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  try {
    const result = await generator.generate(
      {
        description,
        ...(opts.modelId ? { modelId: opts.modelId } : {}),
        ...(opts.view ? { includeView: true } : {}),
        ...(opts.topics
          ? {
              topics: opts.topics
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
            }
          : {}),
      },
      { signal: controller.signal, progress: (f) => say(progressLine(f)) },
    );
    const v = result.verification;
    say(
      `valid spec '${String(result.spec.id)}' after ${result.attempts} attempt(s); embedded tests ${v.passedCount}/${v.checkedCount} passed (${v.state})`,
    );
    for (const w of result.warnings) say(`warning ${w.location}: ${w.message}`);
    const text = `${JSON.stringify(opts.json ? result : result.spec, null, 2)}\n`;
    if (opts.out) {
      const { writeFileAtomic } = await import('./atomic-file.js');
      await writeFileAtomic(opts.out, text, { prefix: 'modelworks' });
      say(`wrote ${opts.out}`);
    } else process.stdout.write(text);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof LlmError) {
      say(`${err.code}: ${err.message}`);
      const errors = err.details.errors;
      if (Array.isArray(errors))
        for (const e of errors.slice(0, 10) as { location?: string; message?: string }[])
          say(`  ${e.location ?? ''}: ${e.message ?? ''}`);
      return err.code === 'LLM_NOT_CONFIGURED' || err.code === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.failed;
    }
    if (controller.signal.aborted) {
      say('interrupted');
      return 130;
    }
    throw err;
  } finally {
    process.removeListener('SIGINT', stop);
  }
}

export function registerGenerateCommand(calcCommand: Command): void {
  const command = calcCommand
    .command('generate')
    .description(
      'Generate a tested ModelSpec from a description with the configured LLM provider (docs/generate.md)',
    )
    .argument('<description>', 'the model in plain language (at most 5,000 characters)')
    .option('--out <file>', 'write the spec to this file instead of stdout')
    .option('--model-id <id>', 'the id to give the spec (otherwise the model chooses one)')
    .option('--view', 'ask for a viewDefinition too')
    .option(
      '--topics <list>',
      'domain-guidance topic ids to include, comma-separated (otherwise chosen from the description)',
    )
    .option('--json', 'print the whole result (spec, verification, attempts) instead of the spec')
    .action(async (description: string, opts: GenerateOptions) => {
      process.exitCode = await generate(description, opts);
    });
  examples(
    command,
    'MODELWORKS_LLM_PROVIDER=anthropic MODELWORKS_LLM_API_KEY_FILE=~/.anthropic-key modelworks calc generate "a car loan with a deposit" --out car-loan.json',
    'MODELWORKS_LLM_PROVIDER=openai-compatible MODELWORKS_LLM_BASE_URL=http://127.0.0.1:11434/v1 MODELWORKS_LLM_MODEL=llama3.1 modelworks calc generate "BMI from height and weight"',
  );
}
