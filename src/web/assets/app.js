// Almoner's only script: the phone's menu, copy buttons and search-as-you-type. Every page
// works without it; it only saves typing.

// With the script, a phone's menu folds behind its button (app.css); without it, every link shows.
document.documentElement.classList.add('js');
document.addEventListener('click', (event) => {
  const toggle = event.target.closest('.menu-toggle');
  if (toggle === null) return;
  const links = document.getElementById(toggle.getAttribute('aria-controls'));
  const open = toggle.getAttribute('aria-expanded') !== 'true';
  toggle.setAttribute('aria-expanded', String(open));
  links.classList.toggle('open', open);
});

function announce(button, text) {
  const original = button.textContent;
  button.textContent = text;
  setTimeout(() => {
    button.textContent = original;
  }, 2000);
}

document.addEventListener('click', async (event) => {
  const button = event.target.closest('[data-copy]');
  if (button === null) return;
  const source = document.getElementById(button.dataset.copy);
  if (source === null) return;
  source.select();
  try {
    await navigator.clipboard.writeText(source.value);
    announce(button, 'Copied');
  } catch {
    announce(button, 'Press Ctrl+C to copy');
  }
});

function suggest(input) {
  const prefix = input.dataset.suggest;
  const list = document.getElementById(`${prefix}-suggestions`);
  const chosen = document.getElementById(`${prefix}-chosen`);
  let items = [];
  let active = -1;
  let timer;
  let sent = 0;

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }
  function highlight(index) {
    active = index;
    for (const [i, li] of [...list.children].entries()) li.setAttribute('aria-selected', String(i === index));
    if (index >= 0) input.setAttribute('aria-activedescendant', `${prefix}-option-${index}`);
  }
  function pick(index) {
    const item = items[index];
    if (item === undefined) return;
    input.value = item.ein;
    chosen.textContent = `${item.name}, ${item.state === '' ? item.city : `${item.city}, ${item.state}`}`;
    close();
  }
  function render() {
    list.replaceChildren(
      ...items.map((item, i) => {
        const li = document.createElement('li');
        li.id = `${prefix}-option-${i}`;
        li.setAttribute('role', 'option');
        li.setAttribute('aria-selected', 'false');
        li.textContent = `${item.name} · ${item.state === '' ? item.city : `${item.city}, ${item.state}`}`;
        li.addEventListener('mousedown', (e) => {
          e.preventDefault();
          pick(i);
        });
        return li;
      }),
    );
    list.hidden = items.length === 0;
    input.setAttribute('aria-expanded', String(items.length > 0));
    active = -1;
  }
  input.addEventListener('input', () => {
    chosen.textContent = '';
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < 2 || /^\d{2}-?\d{7}$/.test(q)) {
      items = [];
      render();
      return;
    }
    timer = setTimeout(async () => {
      const ticket = ++sent;
      const response = await fetch(`/charities/suggest?q=${encodeURIComponent(q)}`, { headers: { accept: 'application/json' } });
      if (!response.ok || ticket !== sent) return;
      items = await response.json();
      render();
    }, 150);
  });
  input.addEventListener('keydown', (event) => {
    if (list.hidden) return;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      highlight(Math.min(active + 1, items.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      highlight(Math.max(active - 1, 0));
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      pick(active);
    } else if (event.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 100));
}

document.querySelectorAll('input[data-suggest]').forEach(suggest);

// Adding money: show the amount for cash, units and a symbol for stock and crypto.
// Hidden fields are disabled too, so that what the donor no longer sees is not sent.
for (const form of document.querySelectorAll('form[data-declare]')) {
  const type = form.querySelector('select[name="type"]');
  const unitTypes = form.dataset.declare.split(' ');
  const sync = () => {
    const units = unitTypes.includes(type.value);
    for (const part of form.querySelectorAll('[data-asset]')) {
      const shown = (part.dataset.asset === 'units') === units;
      part.hidden = !shown;
      for (const input of part.querySelectorAll('input')) input.disabled = !shown;
    }
  };
  type.addEventListener('change', sync);
  sync();
}
