// A custom synth component: a daily sine wave with Gaussian noise. Load it by allowing this
// folder (MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST) and binding it in a model:
//   <definitions><custom name="SineWave" class="sine-wave.mjs"/></definitions>
// Every draw goes through `random`, the run's one stream, so a seed always gives the same rows.
export default {
  kind: 'generator',
  parameters: { amplitude: 10, period: 24, noise: 0.5 },
  dimension: 1,
  create({ parameters, random }) {
    const { amplitude, period, noise } = parameters;
    let t = 0;
    const row = () => {
      const wave = amplitude * Math.sin((2 * Math.PI * t) / period);
      t += 1;
      return [Math.round((wave + noise * random.nextGaussian()) * 1000) / 1000];
    };
    // A partition of a generation starts at its own hour, not at 0: skip n rows without drawing.
    row.skip = (n) => {
      t += n;
    };
    return row;
  },
};
