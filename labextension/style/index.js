import '../../jupyter_agent/ui/static/widget.css';
import './base.css';
