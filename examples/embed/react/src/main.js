/* global document */
// Way 3, React: <ModelworksModel> with callbacks; the ref is the element (ref.current.set(...)).
// See docs/embedding.md for how to run this.
import { createElement as h, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ModelworksModel } from 'modelworks/react';

const SERVER = 'http://127.0.0.1:8080';

function App() {
  const model = useRef(null);
  const [payment, setPayment] = useState(null);
  const [problem, setProblem] = useState(null);
  return h(
    'main',
    null,
    h('h1', null, 'A car loan in a React app'),
    h('p', null, payment === null ? 'Loading…' : `Monthly payment: ${payment}`),
    problem && h('p', { role: 'alert' }, problem),
    h('button', { type: 'button', onClick: () => model.current?.set({ '$.years': 6 }) }, 'Six years'),
    h(ModelworksModel, {
      ref: model,
      src: `${SERVER}/models/car-loan-calculator`,
      theme: 'auto',
      height: 'auto',
      onReady: ({ state }) => setPayment(state.monthlyPayment),
      onChange: ({ state }) => {
        setPayment(state.monthlyPayment);
        setProblem(null);
      },
      onConstraint: ({ violations, rejected }) =>
        rejected && setProblem(violations.map((v) => v.message).join('; ')),
      onError: ({ message }) => setProblem(message),
    }),
  );
}

createRoot(document.getElementById('root')).render(h(App));
