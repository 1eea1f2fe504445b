# `make run` y `make test` funcionan desde un clon limpio: crean .venv e instalan.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
CHROMIUM ?= /usr/bin/chromium
HOST ?= 127.0.0.1
PORT ?= 7860

.PHONY: run test lint bench checkpoints chromium npm clean

$(VENV)/.instalado-run: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.instalado-dev: $(VENV)/.instalado-run requirements-dev.txt
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

# Chromium de Debian para las pruebas de navegador (Playwright no puede bajar el suyo).
chromium:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || \
	  { $$SUDO apt-get update >/dev/null && $$SUDO apt-get install -y --no-install-recommends chromium >/dev/null; }; }

# reveal.js y axe-core (package.json) para las pruebas de navegador: un mazo real y la auditoría de
# accesibilidad. En node_modules/, fuera de git.
node_modules/.instalado: package.json
	npm install --no-audit --no-fund --no-package-lock --loglevel=error
	touch $@

npm: node_modules/.instalado

run: $(VENV)/.instalado-run
	$(PY) app.py --host $(HOST) --port $(PORT)

lint: $(VENV)/.instalado-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# node --test: las funciones puras del código del navegador (demos/comun/navegador/*.mjs), en un segundo.
test: $(VENV)/.instalado-dev chromium npm lint
	PYTHON=$(PY) node --test tests/js/
	$(PY) -m pytest

bench: $(VENV)/.instalado-dev
	$(PY) scripts/bench.py --markdown BENCHMARKS.md

# Reentrena los seis checkpoints incluidos (deterministas).
checkpoints: $(VENV)/.instalado-run
	for n in inversion-digitos inversion-digitos-sin-posicion vit-digitos cbam-digitos clasificador-opiniones decodificador-inversion; do \
	  $(PY) -m modelos.entrenamiento $$n || exit 1; done

# Las pestañas del mazo sin conexión (docs/sin-conexion.html), exportadas a docs/exportados/ (fuera de git).
.PHONY: exportados
exportados: $(VENV)/.instalado-run
	$(PY) app.py --exportar temperatura --salida docs/exportados/temperatura.html --param T=0.5
	$(PY) app.py --exportar mascara-causal --salida docs/exportados/mascara-causal.html --param tipo=ventana
	$(PY) app.py --exportar generacion --salida docs/exportados/generacion.html

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis artefactos node_modules
