// A custom filter: clamps every value of its one input into [min, max] and adds a label column
// naming which side was clamped ("low", "high" or "ok"). It draws nothing.
export default {
  kind: 'filter',
  parameters: { min: -5, max: 5 },
  dimension: ({ inputDimensions }) => inputDimensions[0] + 1,
  create({ parameters }) {
    const { min, max } = parameters;
    return ([values]) => {
      let label = 'ok';
      const clamped = values.map((v) => {
        if (v < min) label = 'low';
        if (v > max) label = 'high';
        return Math.min(max, Math.max(min, v));
      });
      return [...clamped, label];
    };
  },
};
