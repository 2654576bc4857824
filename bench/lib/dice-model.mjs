// Six ability scores, each the sum of three d6 (the cookbook's dnd-ability-scores, restated): the
// model of bench/synth-grind.mjs and of its child runs (grind-child.mjs).
export const DICE_MODEL = `dataset.root = Scores
Roll = Uniform(1, 7)
Die = ToInteger(Roll, mode="floor")
Three = Redimension(Die, dimension=3)
Total = Calculate(Three, expression="y[0] = x[0] + x[1] + x[2]")
Score = Arrange(Total, columns=(0))
Scores = Redimension(Score, dimension=6)
`;
